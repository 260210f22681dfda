import { isSheafError, SheafError } from '../../errors.js';
import { type Database, executorOf } from '../../executors/executor-of.js';
import { detailValue, formatArgument, typeName } from '../../format.js';
import type { Clock } from '../shared/clock.js';
import { asKind, type IdKind, type IdOf, idKind } from '../shared/id-kind.js';
import { messageOf } from '../shared/message-of.js';
import { clockOption, intOption, optionsObject, type RetryOptions, retryOptions } from '../shared/options.js';
import { Backoff, withTimeout } from '../shared/timers.js';
import { type IndexedSeries, inSeries, outOfSeries, refusalOf } from './refusals.js';
import { sheafTickets } from './sheaf-tickets.js';
import { isTicketSource, type TicketSource } from './source.js';

/**
 * What {@link TicketClient} takes.
 *
 * @example
 * const options: TicketClientOptions = { name: 'orders', queryTimeoutMs: 500 };
 */
export interface TicketClientOptions<K extends IdKind = 'bigint'> {
  /**
   * The ticket, created on every sheaf server with `sheaf.create_ticket(name, servers, offset)`;
   * classic servers have their table and stub instead, and the name only labels errors.
   */
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
  /** The series it hands out, once read: `offset`, `offset + step`, … */
  readonly step: number | undefined;
  readonly offset: number | undefined;
  /** Where it is and what was read there, once read: `shop on db1:3306: table Tickets64, …`. */
  readonly series: string | undefined;
}

interface Server {
  readonly index: number;
  readonly source: TicketSource;
  /** Read and checked against the other servers' before its first ticket. */
  series: IndexedSeries | undefined;
  reading: Promise<void> | undefined;
  readonly backoff: Backoff;
  failures: number;
  retryAt: number;
  lastError: unknown;
  /** Answered once: NOT_INSTALLED from it since is an upgrade replacing a routine, an outage. */
  served: boolean;
}

/**
 * Flickr's ticket servers: each server hands out its own arithmetic series (`step` servers, this
 * one at `offset`), the client takes turns among them. A server is a database with sheaf's tickets,
 * or a Flickr-classic table ({@link classicTickets}); both kinds mix. Before a server's first
 * ticket its series is read and checked against the others' (`TICKETS_OVERLAP` when two meet), and
 * every ticket is checked to lie on its server's series. A server that fails is skipped until its
 * backoff ends; `TICKETS_UNAVAILABLE` only when every server is down.
 *
 * @example
 * const tickets = new TicketClient([pgExecutor(odd), pgExecutor(even)], { name: 'orders' });
 * await tickets.check(); // optional: refuse overlapping servers at start-up, not at the first ticket
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
  private checking: Promise<TicketServerStatus[]> | undefined;
  private checked = false;
  /** Servers found to overlap: a configuration to fix, refused for good. */
  private refused: SheafError | undefined;

  constructor(servers: readonly (Database | TicketSource)[], given: TicketClientOptions<K>) {
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
      .map((db) => (isTicketSource(db) ? db : sheafTickets(executorOf(db, 'TicketClient'))))
      .map((source, index) => ({
        index,
        source,
        series: undefined,
        reading: undefined,
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
    if (this.refused) throw this.refused;
    // Once: later, a server still unread is read when its turn comes, after its backoff.
    if (!this.checked) await this.check();
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

  /**
   * Reads the series of every server not read yet and checks that no two meet; the first `next()`
   * runs it too. `TICKETS_OVERLAP` when two servers would hand out one value, or a server hands out
   * every value (step 1) while there are several: then every later call throws it too. A server
   * that does not answer counts as down and is read and checked when it answers again, before its
   * first ticket. Coded errors (an unknown ticket or table) are thrown as they are.
   */
  check(): Promise<TicketServerStatus[]> {
    if (this.refused) return Promise.reject(this.refused);
    this.checking ??= Promise.allSettled(this.pool.map((server) => this.learn(server))).then((results) => {
      this.checking = undefined;
      if (this.refused) throw this.refused;
      const mistake = results.find((result) => result.status === 'rejected');
      if (mistake) throw (mistake as PromiseRejectedResult).reason;
      this.checked = true;
      return this.servers();
    });
    return this.checking;
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
      step: server.series?.step,
      offset: server.series?.offset,
      series: server.series && `${server.series.where}: ${server.series.read}`,
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
      const series = server.series ?? (await this.read(server));
      const drawn = await withTimeout(server.source.draw(this.name), this.queryTimeoutMs, 'the ticket query');
      if (!inSeries(drawn.id, series)) throw outOfSeries(this.name, series, drawn.id, drawn.settings);
      const id = asKind(drawn.id, this.kind, `ticket '${this.name}'`) as IdOf<K>;
      server.failures = 0;
      server.lastError = undefined;
      server.served = true;
      server.backoff.reset();
      return id;
    } catch (error) {
      // A coded error (unknown ticket, id too large) is a mistake, not an outage: no failover.
      if (isSheafError(error) && !(server.served && error.code === 'NOT_INSTALLED')) throw error;
      this.down(server, error);
      return undefined;
    }
  }

  /** `server`'s series, read now: concurrent callers share one reading. */
  private async read(server: Server): Promise<IndexedSeries> {
    server.reading ??= this.admit(server).finally(() => {
      server.reading = undefined;
    });
    await server.reading;
    return server.series!;
  }

  /** Reads `server`'s series and keeps it unless it meets another's; refusing is for good. */
  private async admit(server: Server): Promise<void> {
    const read = await withTimeout(server.source.series(this.name), this.queryTimeoutMs, 'reading the ticket series');
    if (this.refused) throw this.refused;
    const series = { ...read, index: server.index };
    const known = this.pool.flatMap((other) => (other.series ? [other.series] : []));
    const refusal = refusalOf(this.name, series, known, this.pool.length);
    if (refusal) {
      this.refused = refusal;
      throw refusal;
    }
    server.series = series;
  }

  /** The server check() reads, unless already read; a failure to answer marks it down, a mistake is thrown. */
  private async learn(server: Server): Promise<void> {
    if (server.series) return;
    try {
      await this.read(server);
    } catch (error) {
      if (isSheafError(error)) throw error;
      this.down(server, error);
    }
  }

  private down(server: Server, error: unknown): void {
    server.failures++;
    server.lastError = error;
    server.retryAt = this.clock.monotonic() + server.backoff.next();
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
