import { isSheafError, SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { type Database, executorOf } from '../executors/executor-of.js';
import { detailValue, formatArgument, typeName } from '../format.js';
import type { Clock } from './clock.js';
import { type DialectSql, sqlFor } from './dialect-sql.js';
import { asKind, type IdKind, type IdOf, idKind, int8 } from './id-kind.js';
import { messageOf } from './message-of.js';
import { clockOption, intOption, optionsObject, type RetryOptions, retryOptions } from './options.js';
import { Backoff, withTimeout } from './timers.js';

/** The SQL of TicketClient per dialect: one row `(id)` for a ticket name. */
const ticketSql: DialectSql<{ readonly next: string }> = {
  postgres: { next: 'select sheaf.next_ticket($1)::text as id' },
  mysql: { next: 'select sheaf_next_ticket(?) as id' },
};

/**
 * What {@link TicketClient} takes.
 *
 * @example
 * const options: TicketClientOptions = { name: 'orders', queryTimeoutMs: 500 };
 */
export interface TicketClientOptions<K extends IdKind = 'bigint'> {
  /** The ticket, created on every server with `sheaf.create_ticket(name, servers, offset)`. */
  readonly name: string;
  /** `'bigint'` (default) or `'number'`. */
  readonly ids?: K;
  /** How long one server may take before it counts as down (default 2,000 ms). */
  readonly queryTimeoutMs?: number;
  /** How long a failed server is skipped: 1 s doubling to 30 s by default. */
  readonly retry?: RetryOptions;
  readonly clock?: Clock;
}

/**
 * What {@link TicketClient.servers} reports per server.
 *
 * @example
 * const down = client.servers().filter((server: TicketServerStatus) => !server.up);
 */
export interface TicketServerStatus {
  readonly index: number;
  readonly up: boolean;
  /** Failures in a row. */
  readonly failures: number;
  /** Ms until a server that is down is tried again. */
  readonly retryInMs: number;
  readonly lastError: string | undefined;
}

interface Server {
  readonly executor: SqlExecutor;
  readonly sql: string;
  readonly backoff: Backoff;
  failures: number;
  retryAt: number;
  lastError: unknown;
  /** Answered once: NOT_INSTALLED from it since is an upgrade replacing a routine, an outage. */
  served: boolean;
}

/**
 * Flickr's ticket servers: each server hands out its own arithmetic series (`step` servers, this
 * one at `offset`), the client takes turns among them. A server that fails is skipped until its
 * backoff ends; `TICKETS_UNAVAILABLE` only when every server is down.
 *
 * @example
 * const tickets = new TicketClient([pgExecutor(odd), pgExecutor(even)], { name: 'orders' });
 * const id = await tickets.next();
 */
export class TicketClient<K extends IdKind = 'bigint'> {
  readonly name: string;
  private readonly pool: readonly Server[];
  private readonly kind: IdKind;
  private readonly clock: Clock;
  private readonly queryTimeoutMs: number;
  private turn = 0;
  private closed = false;

  constructor(servers: readonly Database[], given: TicketClientOptions<K>) {
    const options = optionsObject('TicketClient', given);
    if (typeof options.name !== 'string' || options.name === '') {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `ticket name must be non-empty text, not ${formatArgument(options.name)}`,
        {
          details: { option: 'name', value: detailValue(options.name) },
        },
      );
    }
    if (!Array.isArray(servers) || servers.length === 0) {
      throw new SheafError(
        'INVALID_ARGUMENT',
        `TicketClient needs an array of at least one server's executor, not ${formatArgument(servers)}`,
        { details: { type: typeName(servers) } },
      );
    }
    this.name = options.name;
    this.kind = idKind(options.ids, 'bigint');
    this.clock = clockOption(options.clock);
    this.queryTimeoutMs = intOption('queryTimeoutMs', options.queryTimeoutMs, 2_000, 1, 2 ** 31 - 1);
    const retry = retryOptions(options.retry, 1_000, 30_000);
    this.pool = servers
      .map((db) => executorOf(db, 'TicketClient'))
      .map((executor) => ({
        executor,
        sql: sqlFor(executor, ticketSql, 'TicketClient').next,
        backoff: new Backoff(retry.minMs, retry.maxMs),
        failures: 0,
        retryAt: 0,
        lastError: undefined,
        served: false,
      }));
  }

  /**
   * The next ticket, from the next server in turn that is up. When those fail, the servers in
   * their backoff are tried too, the one due first first: an error means every server was really
   * found down in this call, not merely remembered as down.
   */
  async next(): Promise<IdOf<K>> {
    if (this.closed) throw new SheafError('GENERATOR_CLOSED', `ticket client '${this.name}' is closed`);
    const start = this.turn;
    this.turn = (this.turn + 1) % this.pool.length;
    const now = this.clock.monotonic();
    const order = this.pool.map((_, i) => this.pool[(start + i) % this.pool.length]!);
    const due = order.filter((server) => server.retryAt <= now);
    const waiting = order.filter((server) => server.retryAt > now).sort((a, b) => a.retryAt - b.retryAt);
    for (const server of [...due, ...waiting]) {
      const id = await this.ask(server);
      if (id !== undefined) return id;
    }
    throw this.unavailable();
  }

  /** Health of each server, in the order given. */
  servers(): TicketServerStatus[] {
    const now = this.clock.monotonic();
    return this.pool.map((server, index) => ({
      index,
      up: server.failures === 0,
      failures: server.failures,
      retryInMs: Math.max(0, Math.round(server.retryAt - now)),
      lastError: server.lastError === undefined ? undefined : messageOf(server.lastError),
    }));
  }

  /** Refuses further calls; the executors belong to the caller, who closes them. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** A ticket from `server`, or undefined when it is down (then skipped until its backoff ends). */
  private async ask(server: Server): Promise<IdOf<K> | undefined> {
    try {
      const query = server.executor.query<{ id: unknown }>(server.sql, [this.name]);
      const [row] = await withTimeout(query, this.queryTimeoutMs, 'the ticket query');
      const id = asKind(int8(row?.id, 'ticket'), this.kind, `ticket '${this.name}'`) as IdOf<K>;
      server.failures = 0;
      server.lastError = undefined;
      server.served = true;
      server.backoff.reset();
      return id;
    } catch (error) {
      // A coded error (unknown ticket, id too large) is a mistake, not an outage: no failover.
      if (isSheafError(error) && !(server.served && error.code === 'NOT_INSTALLED')) throw error;
      server.failures++;
      server.lastError = error;
      server.retryAt = this.clock.monotonic() + server.backoff.next();
      return undefined;
    }
  }

  private unavailable(): SheafError {
    const errors = this.pool.map((server) => server.lastError);
    const last = errors.find((error) => error !== undefined);
    return new SheafError(
      'TICKETS_UNAVAILABLE',
      `ticket '${this.name}': all ${this.pool.length} ticket servers are down (last error: ` + `${messageOf(last)})`,
      {
        cause: new AggregateError(errors, 'every ticket server failed'),
        details: { name: this.name, servers: this.pool.length },
      },
    );
  }
}
