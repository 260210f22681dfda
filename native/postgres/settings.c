/*
 * Loads sheaf's settings for the native path. They are read as the owner of schema sheaf (an
 * application role has no right on sheaf's tables), with search_path pinned as for a security
 * definer function, through the latest committed snapshot; every call first takes in the catalog's
 * invalidations, so a transaction that started before a reconfiguration never issues ids of the
 * shard it left.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "counter.h"
#include "settings.h"

static SheafSettings cached;
static bool cached_valid = false;

/* Holds what a load allocates; reset by the next load. */
static MemoryContext settings_context = NULL;

/* sheaf._bake() re-creates every generator function when a setting changes. */
static void
invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	cached_valid = false;
}

void
sheaf_settings_init(void)
{
	CacheRegisterSyscacheCallback(PROCOID, invalidate, (Datum) 0);
}

/*
 * The owner of schema sheaf, who owns the tables read here. Not the calling function's owner: a
 * statement that began on the native path keeps calling the C function after a switch to PL/pgSQL
 * dropped it (and its catalog row) in another session.
 */
static Oid
schema_owner(Oid schema)
{
	HeapTuple	tuple = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(schema));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sheaf: schema sheaf is missing; run sheaf install")));
	owner = ((Form_pg_namespace) GETSTRUCT(tuple))->nspowner;
	ReleaseSysCache(tuple);
	return owner;
}

static Oid
sheaf_relation(Oid schema, const char *name)
{
	Oid			relation = get_relname_relid(name, schema);

	if (!OidIsValid(relation))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sheaf: sheaf.%s is missing; run sheaf install", name)));
	return relation;
}

/* Runs `query` as the current user through the latest snapshot; the SPI connection is open. */
static void
query_latest(const char *query)
{
	SPIPlanPtr	plan = SPI_prepare(query, 0, NULL);

	if (plan == NULL || SPI_execute_snapshot(plan, NULL, NULL, GetLatestSnapshot(), InvalidSnapshot,
											 true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "sheaf_native: \"%s\" failed", query);
}

static int64
column_int64(int row, int column)
{
	bool		isnull;
	Datum		value = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, column, &isnull);

	if (isnull)
		elog(ERROR, "sheaf_native: sheaf.settings has a null setting");
	return DatumGetInt64(value);
}

static void
read_tables(SheafSettings *s)
{
	StringInfoData logical_text;
	bool		isnull;

	query_latest("select shard_id::pg_catalog.int8, epoch_ms::pg_catalog.int8, shard_bits::pg_catalog.int8, "
				 "sequence_bits::pg_catalog.int8, test_clock::pg_catalog.int4::pg_catalog.int8, "
				 "time_bits::pg_catalog.int8 from sheaf.settings");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sheaf: sheaf.settings has %llu rows, not 1", (unsigned long long) SPI_processed)));
	s->shard_id = (int32) column_int64(0, 1);
	s->epoch_ms = column_int64(0, 2);
	s->shard_bits = (int) column_int64(0, 3);
	s->sequence_bits = (int) column_int64(0, 4);
	s->test_clock = column_int64(0, 5) != 0;
	s->max_tick = (INT64CONST(1) << column_int64(0, 6)) - 1;

	/*
	 * The PL/pgSQL slow path carries the node its shard is bound to in its body; these settings are a
	 * row, which a copy of the database or a replicated schema sheaf brings from another node. Issue
	 * nothing from a row written there (docs/replication.md).
	 */
	query_latest("select pg_catalog.to_regprocedure('sheaf.node_identity()') is not null");
	if (SPI_processed == 1 && DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
	{
		query_latest("select s.database_name, s.node_identity, sheaf.node_identity() from sheaf.settings s "
					 "where s.node_identity is distinct from sheaf.node_identity()");
		if (SPI_processed > 0)
			ereport(ERROR,
					(errcode(MAKE_SQLSTATE('S', 'H', '0', '2', '3')),
					 errmsg("sheaf: this database's settings were written for %s on node %s, and it runs on node %s: "
							"it is a copy, or schema sheaf is replicated from another database, and may not issue "
							"that database's ids; give it a shard of its own (sheaf install --url <this database> "
							"--shard <N>), confirm a move (--moved), or stop replicating schema sheaf",
							SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
							SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2),
							SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3))));
	}

	query_latest("select shard_id::pg_catalog.int8 from sheaf.logical_shards order by 1");
	s->logical_count = (int) SPI_processed;
	s->logical = MemoryContextAlloc(settings_context, sizeof(int32) * Max(s->logical_count, 1));
	initStringInfo(&logical_text);
	for (int i = 0; i < s->logical_count; i++)
	{
		s->logical[i] = (int32) column_int64(i, 1);
		appendStringInfo(&logical_text, "%s%d", i == 0 ? ", logical shards " : ", ", s->logical[i]);
	}
	s->logical_text = MemoryContextStrdup(settings_context, logical_text.data);
}

/*
 * What the slow path in C needs beyond the fast path's settings. It stays off (PL/pgSQL serves the
 * slow path) unless this database runs a SQL version whose slow path block.c repeats and the lock's
 * secret is there: PL/pgSQL then fails as it should (SH024).
 */
static void
read_slow_path_state(SheafSettings *s)
{
	bool		isnull;
	int64		version;
	bytea	   *secret;

	query_latest("select max(version)::pg_catalog.int8 from sheaf.schema_versions");
	if (SPI_processed != 1)
		return;
	version = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (isnull || version < SHEAF_C_SLOW_PATH_FIRST || version > SHEAF_C_SLOW_PATH_LAST)
		return;
	s->hot_ms = version >= SHEAF_HOT_FIRST ? SHEAF_HOT_MS : 1;
	query_latest("select secret, legacy_until from sheaf.lock_secret");
	if (SPI_processed != 1)
		return;
	secret = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (isnull || VARSIZE_ANY_EXHDR(secret) > SHEAF_SECRET_MAX)
		return;
	s->secret_len = VARSIZE_ANY_EXHDR(secret);
	memcpy(s->secret, VARDATA_ANY(secret), s->secret_len);
	s->legacy_until = DatumGetTimestampTz(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (isnull)
		s->legacy_until = DT_NOBEGIN;
	s->c_slow_path = OidIsValid(s->durable_block) && OidIsValid(s->opened_at) &&
		OidIsValid(s->step_allowance) && OidIsValid(s->node_mark) && OidIsValid(s->lock_epoch);
}

static void
load(void)
{
	SheafSettings s = {0};
	Oid			schema = get_namespace_oid("sheaf", false);
	Oid			save_user;
	int			save_context;
	int			save_nestlevel;

	if (settings_context == NULL)
		settings_context = AllocSetContextCreate(TopMemoryContext, "sheaf_native settings", ALLOCSET_SMALL_SIZES);
	MemoryContextReset(settings_context);

	s.counter = sheaf_relation(schema, "counter");
	/* From SQL version 16 the fast path reads the live block, which a crash or promotion resets. */
	s.block = OidIsValid(get_relname_relid("live_block", schema)) ? sheaf_relation(schema, "live_block")
		: sheaf_relation(schema, "block");
	s.durable_block = get_relname_relid("block", schema);
	s.opened_at = get_relname_relid("opened_at", schema);
	s.step_allowance = get_relname_relid("step_allowance", schema);
	s.node_mark = get_relname_relid("node_mark", schema);
	s.lock_epoch = get_relname_relid("lock_epoch", schema);
	s.owner = schema_owner(schema);
	s.next_block = LookupFuncName(list_make2(makeString("sheaf"), makeString("_next_block")), 0, NULL, false);
	s.next_block_call = MemoryContextAlloc(settings_context, sizeof(FmgrInfo));
	fmgr_info_cxt(s.next_block, s.next_block_call, settings_context);

	/*
	 * As a security definer function runs: the queries run as the owner, so nothing the caller
	 * created may be found by name (a pg_temp type called int8 is found before pg_catalog's, and its
	 * domain check would run as the owner). An error unwinds the GUC level with the transaction.
	 */
	GetUserIdAndSecContext(&save_user, &save_context);
	save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	SetUserIdAndSecContext(s.owner,
						   save_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "sheaf_native: SPI_connect failed");
		read_tables(&s);
		read_slow_path_state(&s);
		SPI_finish();
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_user, save_context);
	}
	PG_END_TRY();
	AtEOXact_GUC(true, save_nestlevel);

	s.time_shift = s.shard_bits + s.sequence_bits;
	s.shard_mask = ((INT64CONST(1) << s.shard_bits) - 1) << s.sequence_bits;
	s.shard_field = ((int64) s.shard_id) << s.sequence_bits;
	s.shard_clear = ~s.shard_mask;
	s.seq_mask = (INT64CONST(1) << s.sequence_bits) - 1;
	/* As sheaf._bake() renders it: a batch of 1,000,000 ids fits. */
	s.max_lead_ms = Max(2000, 2 * ((1000000 + s.seq_mask) >> s.sequence_bits));
	s.block_seen = PG_INT64_MIN;
	/* One block's values: a record per block, as the slow path writes the block itself. */
	s.counter_log_ahead = sheaf_counter_plain(s.counter) ? Max(32, s.seq_mask + 1) : 0;

	cached = s;
}

SheafSettings *
sheaf_settings(void)
{
	/*
	 * A transaction reads the catalog as of its last lock acquisition: without this, one begun before
	 * a reconfiguration kept the shard it left (cached here, and in the PL/pgSQL slow path's body)
	 * for as long as it took no new lock. Cheap when no message is queued.
	 */
	AcceptInvalidationMessages();
	if (!cached_valid)
	{
		/* Valid from here: an invalidation that arrives while loading makes the next call reload. */
		cached_valid = true;
		PG_TRY();
		{
			load();
		}
		PG_CATCH();
		{
			cached_valid = false;
			PG_RE_THROW();
		}
		PG_END_TRY();
	}
	return &cached;
}
