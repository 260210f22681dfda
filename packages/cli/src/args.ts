import { parseArgs } from 'node:util';
import { isSheafError, type Layout, layoutByName } from '@sheaf/core';
import { UsageError } from './usage-error.js';

/**
 * The flags a command takes: name to kind. Every command also takes `--help` / `-h`. A string flag
 * with `multiple: true` may be repeated; read it with {@link texts}.
 */
export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/** Parsed command line: option values by name (a list for repeatable flags), and the positionals. */
export interface Args {
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
}

/** Parses strictly: an unknown flag, a missing value or an unexpected positional is a `UsageError`. */
export function parse(argv: readonly string[], options: OptionSpec, positionals: boolean): Args {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: positionals,
      strict: true,
    });
    return { values: parsed.values as Args['values'], positionals: parsed.positionals };
  } catch (error) {
    // node:util's messages name the flag ("Unknown option '--shrad'"); keep them, minus node's error code.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A string option's value, or undefined. */
export function text(args: Args, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable string option's values in the order given; empty when it was not given. */
export function texts(args: Args, name: string): string[] {
  const value = args.values[name];
  if (Array.isArray(value)) return [...value];
  return typeof value === 'string' ? [value] : [];
}

/** A string option that must be given. */
export function required(args: Args, name: string): string {
  const value = text(args, name);
  if (value === undefined) throw new UsageError(`missing --${name}`);
  return value;
}

/** Whether a boolean flag was given. */
export function flag(args: Args, name: string): boolean {
  return args.values[name] === true;
}

/** A non-negative whole number (the range check belongs to the layout, which names its limit). */
export function count(name: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--${name} must be a whole number of 0 or more, not "${raw}"`);
  }
  return value;
}

/** An ISO 8601 time or unix milliseconds. */
export function time(name: string, raw: string): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(
      `--${name} must be an ISO 8601 time (2026-01-02T03:04:05Z) or unix milliseconds, not "${raw}"`,
    );
  }
  return value;
}

/** `--layout`: a preset name (default sheaf); an unknown name is a usage error listing the known ones. */
export function layoutOption(args: Args): Layout {
  try {
    return layoutByName(text(args, 'layout') ?? 'sheaf');
  } catch (error) {
    if (isSheafError(error, 'INVALID_LAYOUT')) throw new UsageError(`--${error.message.replace(/^sheaf: /, '')}`);
    throw error;
  }
}
