// MariaDB with mysql2, as docs/sql/mysql.md: a BIGINT AUTO_INCREMENT key and the sheaf trigger, so
// each single-row insert's insertId is the sheaf id.
import { sheafTriggerSql } from '@sheaf/core';
import mysql from 'mysql2/promise';

// BIGINT as exact strings: without these mysql2 rounds ids to JavaScript numbers.
const pool = mysql.createPool({ uri: process.env.DATABASE_URL, supportBigNumbers: true, bigNumberStrings: true });
try {
  await pool.query('create table orders (id bigint not null auto_increment primary key, item varchar(40) not null)');
  await pool.query(sheafTriggerSql('orders', 'id').create);
  const ids = [];
  for (const item of ['tea', 'rice', 'ink']) {
    const [result] = await pool.query('insert into orders (item) values (?)', [item]);
    ids.push(String(result.insertId));
  }
  const [rows] = await pool.query('select id from orders order by id');
  console.log(JSON.stringify({ ids, stored: rows.map((row) => String(row.id)) }));
} finally {
  await pool.end();
}
