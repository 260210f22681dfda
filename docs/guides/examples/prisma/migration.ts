// What `prisma migrate dev --create-only` writes for the example schemas, plus the sheaf trigger
// added by hand on MySQL (Prisma knows nothing of triggers). The tests apply these statements.
import { sheafTriggerSql } from '@sheaf/core';

export const postgresMigration = [
  `create table "Customer" (
    "id" bigint not null default sheaf.next_id(),
    "email" text not null,
    constraint "Customer_pkey" primary key ("id"))`,
  'create unique index "Customer_email_key" on "Customer"("email")',
  `create table "orders" (
    "id" bigint not null default sheaf.next_id(),
    "customer_id" bigint not null references "Customer"("id"),
    "total" integer not null,
    constraint "orders_pkey" primary key ("id"))`,
  `create table "order_items" (
    "id" bigint not null default sheaf.next_id(),
    "order_id" bigint not null references "orders"("id"),
    "sku" text not null,
    constraint "order_items_pkey" primary key ("id"))`,
];

export const mysqlMigration = [
  `create table Customer (
    id bigint not null auto_increment,
    email varchar(191) not null,
    unique index Customer_email_key (email),
    primary key (id))`,
  sheafTriggerSql('Customer', 'id').create,
  `create table orders (
    id bigint not null,
    customer_id bigint not null,
    total integer not null,
    primary key (id),
    foreign key (customer_id) references Customer (id))`,
  sheafTriggerSql('orders', 'id').create,
  `create table order_items (
    id bigint not null,
    order_id bigint not null,
    sku varchar(191) not null,
    primary key (id),
    foreign key (order_id) references orders (id))`,
  sheafTriggerSql('order_items', 'id').create,
  `create table Note (
    id bigint not null,
    body varchar(191) not null,
    primary key (id))`,
  sheafTriggerSql('Note', 'id').create,
];
