/*
 * Loads sheaf's settings for the native path. They are read as the owner of the calling function
 * (an application role has no right on sheaf's tables) through the latest committed snapshot, so a
 * transaction that started before a reconfiguration never issues ids of the shard it left.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "settings.h"

static SheafSettings cached;
static bool cached_valid = false;

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

static Oid
function_owner(Oid function)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(function));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "sheaf_native: function %u has no catalog entry", function);
	owner = ((Form_pg_proc) GETSTRUCT(tuple))->proowner;
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

	query_latest("select shard_id::int8, epoch_ms::int8, shard_bits::int8, sequence_bits::int8, "
				 "test_clock::int::int8 from sheaf.settings");
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sheaf: sheaf.settings has %llu rows, not 1", (unsigned long long) SPI_processed)));
	s->shard_id = (int32) column_int64(0, 1);
	s->epoch_ms = column_int64(0, 2);
	s->shard_bits = (int) column_int64(0, 3);
	s->sequence_bits = (int) column_int64(0, 4);
	s->test_clock = column_int64(0, 5) != 0;

	query_latest("select shard_id::int8 from sheaf.logical_shards order by 1");
	s->logical_count = (int) SPI_processed;
	s->logical = MemoryContextAlloc(TopMemoryContext, sizeof(int32) * Max(s->logical_count, 1));
	initStringInfo(&logical_text);
	for (int i = 0; i < s->logical_count; i++)
	{
		s->logical[i] = (int32) column_int64(i, 1);
		appendStringInfo(&logical_text, "%s%d", i == 0 ? ", logical shards " : ", ", s->logical[i]);
	}
	s->logical_text = MemoryContextStrdup(TopMemoryContext, logical_text.data);
}

static void
load(Oid function)
{
	SheafSettings s = {0};
	Oid			schema = get_namespace_oid("sheaf", false);
	Oid			save_user;
	int			save_context;

	s.counter = sheaf_relation(schema, "counter");
	s.block = sheaf_relation(schema, "block");
	s.next_block = LookupFuncName(list_make2(makeString("sheaf"), makeString("_next_block")), 0, NULL, false);

	GetUserIdAndSecContext(&save_user, &save_context);
	SetUserIdAndSecContext(function_owner(function),
						   save_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "sheaf_native: SPI_connect failed");
		read_tables(&s);
		SPI_finish();
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_user, save_context);
	}
	PG_END_TRY();

	s.time_shift = s.shard_bits + s.sequence_bits;
	s.shard_mask = ((INT64CONST(1) << s.shard_bits) - 1) << s.sequence_bits;
	s.shard_field = ((int64) s.shard_id) << s.sequence_bits;
	s.shard_clear = ~s.shard_mask;
	s.block_seen = PG_INT64_MIN;

	if (cached.logical)
		pfree(cached.logical);
	if (cached.logical_text)
		pfree(cached.logical_text);
	cached = s;
}

SheafSettings *
sheaf_settings(Oid function)
{
	if (!cached_valid)
	{
		/* Valid from here: an invalidation that arrives while loading makes the next call reload. */
		cached_valid = true;
		PG_TRY();
		{
			load(function);
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
