/*
 * sheaf.next_id() in C (docs/native.md). Same state, same acceptance rule and the same slow path
 * as the PL/pgSQL version (docs/sql/postgres.md, "How next_id works"): a counter value t is handed
 * out only when t <= u for a block bound u read before t was taken, the clock has not passed t's
 * millisecond, and t carries this database's shard. Anything else goes to the slow path (block.c).
 * Both versions can serve one database at the same time, so moving between them needs no pause.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/acl.h"

#include "block.h"
#include "counter.h"
#include "clock.h"
#include "seqtuple.h"
#include "settings.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(sheaf_native_next_id);
PG_FUNCTION_INFO_V1(sheaf_native_next_id_shard);

#define SHEAF_ERROR(code) MAKE_SQLSTATE('S', 'H', '0', code[0], code[1])

/* Declared by fmgr.h from PostgreSQL 16 on. */
void		_PG_init(void);

void
_PG_init(void)
{
	sheaf_settings_init();
	sheaf_seqtuple_init();
}

static inline bool
fresh(const SheafSettings *s, int64 t, int64 u, int64 now_tick)
{
	return t <= u && (t >> s->time_shift) >= now_tick && (t & s->shard_mask) == s->shard_field;
}

/*
 * The published block, or -1 before the first. Read for the caller, who needs SELECT or USAGE on
 * it, as pg_sequence_last_value() would ask.
 */
static int64
read_block(const SheafSettings *s)
{
	int64		u;

	return sheaf_sequence_last(s->block, ACL_SELECT | ACL_USAGE, &u) ? u : -1;
}

/*
 * One id of the configured shard. The first try uses the block this backend saw last: it was
 * published before the counter value is taken, and a newer block only accepts more. A miss reads
 * the block again and takes a new value (the missed one was taken before that read, so the rule
 * cannot accept it), then falls back to the slow path.
 */
static int64
next_id(SheafSettings *s)
{
	int64		t = sheaf_counter_next(s->counter, s->counter_log_ahead);

	if (fresh(s, t, s->block_seen, sheaf_clock_tick(s)))
		return t;
	s->block_seen = read_block(s);
	t = sheaf_counter_next(s->counter, s->counter_log_ahead);
	if (fresh(s, t, s->block_seen, sheaf_clock_tick(s)))
		return t;
	t = sheaf_next_block(s);
	s->block_seen = read_block(s);
	return t;
}

Datum
sheaf_native_next_id(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(next_id(sheaf_settings()));
}

/* The same checks and messages as the SQL version's next_id(shard). */
static void
check_shard(const SheafSettings *s, bool isnull, int32 shard)
{
	int32		max_shard = (1 << s->shard_bits) - 1;

	if (isnull || shard < 0 || shard > max_shard)
		ereport(ERROR,
				(errcode(SHEAF_ERROR("01")),
				 errmsg("sheaf: shard %s does not fit %d shard bits (max %d)",
						isnull ? "null" : psprintf("%d", shard), s->shard_bits, max_shard)));
	if (shard == s->shard_id)
		return;
	for (int i = 0; i < s->logical_count; i++)
		if (s->logical[i] == shard)
			return;
	ereport(ERROR,
			(errcode(SHEAF_ERROR("15")),
			 errmsg("sheaf: shard %d is not issued by this database (shard %d%s); add it with "
					"sheaf.add_shard(%d) if no other database issues it",
					shard, s->shard_id, s->logical_text, shard)));
}

Datum
sheaf_native_next_id_shard(PG_FUNCTION_ARGS)
{
	SheafSettings *s = sheaf_settings();
	int32		shard = PG_ARGISNULL(0) ? 0 : PG_GETARG_INT32(0);

	check_shard(s, PG_ARGISNULL(0), shard);
	PG_RETURN_INT64((next_id(s) & s->shard_clear) | ((int64) shard << s->sequence_bits));
}
