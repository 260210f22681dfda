/*
 * The slow path in C: sheaf._next_block() (docs/sql/postgres.md, "How next_id works") for the one
 * case that runs once per millisecond, a block opened at the clock right after the last one. It
 * takes the same lock as the PL/pgSQL version (the same key, from the same secret and epoch, held
 * by the same rule), reads and moves the same sequences in the same order, and moves the epoch
 * before it releases the key, so the two versions exclude each other and the proof covers any mix
 * of them. Whatever else the PL/pgSQL version does (the node check of a copy, a rebase after a
 * crash, the lead bound's wait, a clock stepped back, the fixed key of versions 1-7, the errors it
 * names) is left to it: this code releases the lock untouched and calls sheaf._next_block().
 */
#include "postgres.h"

#include <sched.h>

#include "access/xact.h"
#include "commands/sequence.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "block.h"
#include "counter.h"
#include "clock.h"
#include "seqtuple.h"
#include "sha256.h"

#define SHEAF_ERROR(code) MAKE_SQLSTATE('S', 'H', '0', code[0], code[1])

/* As long as the PL/pgSQL version waits for the lock before it fails with SH014. */
#define LOCK_WAIT_MS 2000

/* Tries of the lock and the fast path that only yield the processor, before pauses begin. */
#define YIELDS_BEFORE_SLEEP 50

static int64
last_value_or(Oid sequence, int64 otherwise)
{
	int64		value;

	return sheaf_sequence_last(sequence, ACL_NO_RIGHTS, &value) ? value : otherwise;
}

/* The key of `epoch`: the first 8 bytes of sha256(secret || int8send(epoch)), as the SQL computes it. */
static int64
lock_key(const SheafSettings *s, int64 epoch)
{
	uint8		input[SHEAF_SECRET_MAX + 8];
	uint8		digest[SHEAF_SHA256_LENGTH];
	uint64		k = 0;

	memcpy(input, s->secret, s->secret_len);
	for (int i = 0; i < 8; i++)
		input[s->secret_len + i] = (uint8) ((uint64) epoch >> (56 - 8 * i));
	sheaf_sha256(input, s->secret_len + 8, digest);
	for (int i = 0; i < 8; i++)
		k = (k << 8) | digest[i];
	return (int64) k;
}

/* The lock of `epoch`; a waiter asks for the same epoch's key many times, so the last one is kept. */
static void
lock_tag(const SheafSettings *s, int64 epoch, LOCKTAG *tag, int64 *key)
{
	static bool kept = false;
	static int64 kept_epoch;
	static int64 kept_key;
	static uint8 kept_secret[SHEAF_SECRET_MAX];
	static int	kept_secret_len;

	if (!kept || kept_epoch != epoch || kept_secret_len != s->secret_len ||
		memcmp(kept_secret, s->secret, s->secret_len) != 0)
	{
		kept = false;
		kept_key = lock_key(s, epoch);
		kept_epoch = epoch;
		memcpy(kept_secret, s->secret, s->secret_len);
		kept_secret_len = s->secret_len;
		kept = true;
	}
	*key = kept_key;
	/* As pg_advisory_lock(bigint) tags its key. */
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) ((uint64) kept_key >> 32), (uint32) kept_key, 1);
}

/* The fast path's test, with the clock read now. */
static bool
fresh(const SheafSettings *s, int64 t, bool has_u, int64 u)
{
	return has_u && t <= u && (t & s->shard_mask) == s->shard_field &&
		(t >> s->time_shift) >= sheaf_clock_tick(s);
}

/*
 * The fast path once more, as the PL/pgSQL version's lock loop tries it. A block of a millisecond
 * the clock has passed accepts no value: then no value is taken, and the counter's page is left to
 * the holder, who is about to move it.
 */
static bool
try_published(const SheafSettings *s, int64 *id)
{
	int64		u;

	if (!sheaf_sequence_last(s->block, ACL_NO_RIGHTS, &u) || (u >> s->time_shift) < sheaf_clock_tick(s))
		return false;
	*id = sheaf_counter_next(s->counter, s->counter_log_ahead);
	return fresh(s, *id, true, u);
}

/*
 * The PL/pgSQL slow path, called as the SQL version calls it, and counted as its calls are (with
 * track_functions = 'pl' or 'all', pg_stat_user_functions shows how often it ran).
 */
static int64
plpgsql_next_block(const SheafSettings *s)
{
	LOCAL_FCINFO(fcinfo, 0);
	PgStat_FunctionCallUsage usage;
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, s->next_block_call, 0, InvalidOid, NULL, NULL);
	pgstat_init_function_usage(fcinfo, &usage);
	result = FunctionCallInvoke(fcinfo);
	pgstat_end_function_usage(&usage, true);
	if (fcinfo->isnull)
		elog(ERROR, "sheaf_native: sheaf._next_block() returned null");
	return DatumGetInt64(result);
}

/*
 * The counter's file is the one the node was last confirmed for: anything else (a copy, a relation
 * rewritten in place) goes to PL/pgSQL, which checks the node and confirms it.
 */
static bool
node_confirmed(const SheafSettings *s)
{
	int64		mark;
	text	   *path;

	if (!sheaf_sequence_last(s->node_mark, ACL_NO_RIGHTS, &mark))
		return false;
	path = DatumGetTextPP(DirectFunctionCall1(pg_relation_filepath, ObjectIdGetDatum(s->counter)));
	return mark == DatumGetInt64(hash_any_extended((unsigned char *) VARDATA_ANY(path), VARSIZE_ANY_EXHDR(path), 0));
}

/* SH014 as the PL/pgSQL version raises it, naming the holder of the key. */
static void
fail_busy(int64 key)
{
	char	   *holders = NULL;
	char		query[512];

	snprintf(query, sizeof(query),
			 "select pg_catalog.string_agg(l.pid::pg_catalog.text, ', ' order by l.pid) from pg_catalog.pg_locks l "
			 "where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.classid = %u::pg_catalog.oid and l.objid = %u::pg_catalog.oid",
			 (uint32) ((uint64) key >> 32), (uint32) key);
	if (SPI_connect() == SPI_OK_CONNECT)
	{
		if (SPI_execute(query, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		{
			char	   *value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

			if (value != NULL)
				holders = MemoryContextStrdup(TopTransactionContext, value);
		}
		SPI_finish();
	}
	ereport(ERROR,
			(errcode(SHEAF_ERROR("14")),
			 errmsg("sheaf: waited %d ms for the generator's block lock, held by pid %s; if that session is "
					"not generating ids, end it (pg_terminate_backend)", LOCK_WAIT_MS, holders ? holders : "?")));
}

/* Test installs only: sleeps for sheaf.test_pause_ms inside the lock, as sheaf._test_pause() does. */
static void
test_pause(const SheafSettings *s)
{
	const char *pause;

	if (!s->test_clock)
		return;
	pause = GetConfigOption("sheaf.test_pause_ms", true, false);
	if (pause != NULL && pause[0] != '\0')
		DirectFunctionCall1(pg_sleep, Float8GetDatum(strtod(pause, NULL) / 1000.0));
}

typedef enum Opened
{
	OPENED,						/* *id is the first id of the block this session opened */
	PUBLISHED,					/* *id is from a block another session opened meanwhile */
	LEAVE_TO_PLPGSQL,			/* nothing moved: the case is the PL/pgSQL version's */
} Opened;

/*
 * Under the lock: step 1 and the common case of step 2 of the PL/pgSQL version, with n = 1. A
 * block opens at the clock (ahead of it when hot), or right after the last one, as PL/pgSQL opens
 * it when the live block is set, the clock has not stepped back and no allowance is owed; every
 * other case moves nothing.
 */
static Opened
open_block(const SheafSettings *s, int64 *id)
{
	int64		u;
	bool		has_u;
	int64		t;
	int64		now_tick;
	int64		opened_at;
	int64		durable;
	int64		tick;

	test_pause(s);
	has_u = sheaf_sequence_last(s->block, ACL_NO_RIGHTS, &u);
	t = sheaf_counter_next(s->counter, s->counter_log_ahead);
	now_tick = sheaf_clock_tick(s);
	if (has_u && t <= u && (t >> s->time_shift) >= now_tick && (t & s->shard_mask) == s->shard_field)
	{
		*id = t;
		return PUBLISHED;
	}
	if (!has_u || now_tick < 0 || last_value_or(s->step_allowance, 0) != 0 ||
		(sheaf_sequence_last(s->opened_at, ACL_NO_RIGHTS, &opened_at) && now_tick < opened_at))
		return LEAVE_TO_PLPGSQL;
	/* Sessions in a function of before version 16 publish their blocks in sheaf.block alone. */
	if (sheaf_sequence_last(s->durable_block, ACL_NO_RIGHTS, &durable))
		u = Max(u, durable);
	tick = (u >> s->time_shift) + 1;
	/* Hot blocks lead (version 20): the last block ended less than hot_ms ago. */
	if (now_tick >= tick)
		tick = now_tick - tick < s->hot_ms ? now_tick + s->hot_ms - 1 : now_tick;
	if (tick > now_tick + s->max_lead_ms || tick > s->max_tick)
		return LEAVE_TO_PLPGSQL;
	/* The order of the proof: the counter first, then the durable block, then the live one. */
	sheaf_sequence_set(s->counter, ((tick << s->time_shift) | s->shard_field) + 1, false);
	sheaf_sequence_set(s->durable_block, (tick << s->time_shift) | s->shard_field | s->seq_mask, true);
	sheaf_sequence_set(s->opened_at, now_tick, true);
	sheaf_sequence_set(s->block, (tick << s->time_shift) | s->shard_field | s->seq_mask, true);
	*id = (tick << s->time_shift) | s->shard_field;
	return OPENED;
}

/*
 * Runs open_block() in a subtransaction, as the PL/pgSQL version's exception block does, so that
 * whatever ends it (a cancel during the test pause, an error) still moves the epoch and releases
 * the key: a key seen in pg_locks must be stale before it is free.
 */
static Opened
open_block_locked(const SheafSettings *s, LOCKTAG *tag, int64 epoch, int64 *id)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Opened		opened;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(context);
	PG_TRY();
	{
		opened = open_block(s, id);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(context);
		error = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
		if (last_value_or(s->lock_epoch, -1) == epoch)
			(void) nextval_internal(s->lock_epoch, true);
		LockRelease(tag, ExclusiveLock, true);
		ReThrowError(error);
	}
	PG_END_TRY();
	/* The epoch moves first, so the key is stale before anyone else can take it. */
	(void) nextval_internal(s->lock_epoch, true);
	LockRelease(tag, ExclusiveLock, true);
	return opened;
}

/*
 * Takes the lock as the PL/pgSQL version does: the key of the epoch read, then the epoch read again.
 * It never queues behind a key: it tries, tries the fast path again (the holder's block may be
 * published), and tries again, so it never waits behind a stale key's taker. A holder opens its
 * block within microseconds: the first tries only yield the processor (to the holder, when it is
 * the one waiting for it); a sleep, however short, lasts the kernel's timer slack (50 µs), which
 * each session crossing a millisecond would lose.
 */
static Opened
lock_and_open(const SheafSettings *s, int64 *id)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LOCK_WAIT_MS);
	int			tries = 0;
	long		pause_us = 10;

	for (;;)
	{
		int64		epoch = last_value_or(s->lock_epoch, -1);
		int64		key;
		LOCKTAG		tag;

		lock_tag(s, epoch, &tag, &key);
		if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
		{
			if (last_value_or(s->lock_epoch, -1) == epoch)
				return open_block_locked(s, &tag, epoch, id);
			/* The holder this session waited for moved the epoch: the key it holds now is stale. */
			LockRelease(&tag, ExclusiveLock, true);
		}
		if (try_published(s, id))
			return PUBLISHED;
		if (GetCurrentTimestamp() >= deadline)
			fail_busy(key);
		if (++tries <= YIELDS_BEFORE_SLEEP)
			sched_yield();
		else
		{
			pg_usleep(pause_us);
			pause_us = Min(pause_us * 2, 1000);
		}
		CHECK_FOR_INTERRUPTS();
	}
}

int64
sheaf_next_block(const SheafSettings *s)
{
	AclResult	granted = pg_proc_aclcheck(s->next_block, GetUserId(), ACL_EXECUTE);
	Oid			save_user;
	int			save_context;
	int64		id = 0;
	Opened		opened = LEAVE_TO_PLPGSQL;

	if (granted != ACLCHECK_OK)
		aclcheck_error(granted, OBJECT_FUNCTION, "sheaf._next_block");
	if (!s->c_slow_path || GetCurrentTimestamp() < s->legacy_until)
		return plpgsql_next_block(s);

	/* As the security definer PL/pgSQL version runs: as the owner of schema sheaf. */
	GetUserIdAndSecContext(&save_user, &save_context);
	SetUserIdAndSecContext(s->owner, save_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		if (node_confirmed(s))
			opened = lock_and_open(s, &id);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_user, save_context);
	}
	PG_END_TRY();
	return opened == LEAVE_TO_PLPGSQL ? plpgsql_next_block(s) : id;
}
