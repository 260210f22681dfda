// The client of an adopted database (docs/guides/prisma.md, "Adopting a database Prisma never
// managed"), on the models `prisma db pull` wrote: customers keep the column default's ids, orders
// take ids from the process's generator. test/guides/prisma-adopt.test.ts runs it after adopt.sh.
import { PrismaPg } from '@prisma/adapter-pg';
import { type PrismaIdSource, sheaf } from '@sheaf/prisma';
import { PrismaClient } from '../../../../test/.generated/prisma/adopted/client.js';
import { sheafModels } from '../../../../test/.generated/prisma/adopted/sheaf/models.js';

/** The Prisma client of the adopted database, extended with sheaf. */
export function adoptedClient(url: string, generator: PrismaIdSource) {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }).$extends(
    sheaf({
      schema: sheafModels,
      models: {
        customers: { strategy: 'db' },
        orders: { strategy: 'snowflake', generator },
      },
    }),
  );
}
