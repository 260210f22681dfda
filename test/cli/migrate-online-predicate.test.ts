import { describe, expect, it } from 'vitest';
import { renamePredicateColumns } from '../../packages/migrate/src/online/online-predicate.js';

const renames = new Map([
  ['customer_id', 'customer_id_sheaf'],
  ['Order Id', 'Order Id_sheaf'],
]);

describe('renamePredicateColumns (the predicate of an index copy on shadow columns)', () => {
  it.each([
    ['(customer_id > 100)', '("customer_id_sheaf" > 100)'],
    [
      '(("Order Id" IS NOT NULL) AND (customer_id <> 1))',
      '(("Order Id_sheaf" IS NOT NULL) AND ("customer_id_sheaf" <> 1))',
    ],
    // Literals and other names that merely spell the column stay as they are.
    [`(status <> 'customer_id'::text)`, `(status <> 'customer_id'::text)`],
    [`(note <> 'it''s customer_id'::text)`, `(note <> 'it''s customer_id'::text)`],
    [`(note <> E'\\' customer_id'::text)`, `(note <> E'\\' customer_id'::text)`],
    ['(customer_id_old > 1e5)', '(customer_id_old > 1e5)'],
    ['(public.customer_id(customer_id) > 0)', '(public.customer_id("customer_id_sheaf") > 0)'],
    ['((customer_id)::customer_id IS NOT NULL)', '(("customer_id_sheaf")::customer_id IS NOT NULL)'],
    ['(name > (x COLLATE customer_id))', '(name > (x COLLATE customer_id))'],
    ['(f(customer_id => customer_id) > 0)', '(f(customer_id => "customer_id_sheaf") > 0)'],
    // Upper case is a keyword in the deparser's output, never an unquoted column.
    ['(CUSTOMER_ID > 0)', '(CUSTOMER_ID > 0)'],
  ])('%s', (predicate, expected) => {
    expect(renamePredicateColumns(predicate, renames)).toBe(expected);
  });
});
