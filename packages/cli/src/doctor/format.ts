const second = 1000;
const day = 86_400_000;
/** A Julian year: what "5 years" means in the doctor's rules. */
export const yearMs = 365.25 * day;

/**
 * A duration for people: "850 ms", "12.5 s", "3.2 h", "10.4 days", "66.8 years".
 *
 * @example
 * duration(1_500); // '1.5 s'
 */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < second) return `${Math.round(ms)} ms`;
  if (abs < 3600 * second) return `${round(ms / second)} s`;
  if (abs < 2 * day) return `${round(ms / 3_600_000)} h`;
  if (abs < yearMs) return `${round(ms / day)} days`;
  return `${round(ms / yearMs)} years`;
}

/**
 * A count with thousands separators, locale-independent: "3,500".
 *
 * @example
 * grouped(1234567n); // '1,234,567'
 */
export function grouped(value: number | bigint): string {
  return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Items joined for a sentence.
 *
 * @example
 * listed(['A', 'B', 'C']); // 'A, B and C'
 */
export function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function round(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}
