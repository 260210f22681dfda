/*
 * The generator's settings, as sheaf._bake() last wrote them, cached in each backend until a
 * function of sheaf's is created or replaced (every change of settings re-bakes them).
 */
#ifndef SHEAF_SETTINGS_H
#define SHEAF_SETTINGS_H

#include "postgres.h"

#include "fmgr.h"
#include "datatype/timestamp.h"

/* The SQL versions whose slow path (sheaf._next_block()) block.c repeats step for step. */
#define SHEAF_C_SLOW_PATH_FIRST 16
#define SHEAF_C_SLOW_PATH_LAST 21
/* From it, a block that follows one ended less than this many ms ago opens this much ahead, less 1. */
#define SHEAF_HOT_FIRST 20
#define SHEAF_HOT_MS 8

#define SHEAF_SECRET_MAX 64

typedef struct SheafSettings
{
	Oid			owner;			/* owner of schema sheaf, as whom the slow path runs */
	Oid			counter;		/* sheaf.counter: the next id of the open block */
	int64		counter_log_ahead;	/* how far a WAL record logs it ahead (counter.c); 0:
									 * nextval() takes its values */
	Oid			block;			/* sheaf.live_block (sheaf.block before version 16): the
								 * last id of the block opened last */
	Oid			next_block;		/* sheaf._next_block(): the slow path in PL/pgSQL */
	FmgrInfo   *next_block_call;	/* its call info, kept: a call sets up the security
									 * definer context once, not once per slow path */
	/*
	 * The slow path in C (block.c): only for the SQL versions it repeats, when the lock's secret is
	 * there. Otherwise, and in the cases it leaves to PL/pgSQL, it calls sheaf._next_block().
	 */
	bool		c_slow_path;
	Oid			durable_block;	/* sheaf.block */
	Oid			opened_at;
	Oid			step_allowance;
	Oid			node_mark;
	Oid			lock_epoch;
	uint8		secret[SHEAF_SECRET_MAX];
	int			secret_len;
	TimestampTz legacy_until;	/* until then, PL/pgSQL also takes versions 1-7's fixed key */
	int64		max_lead_ms;	/* the lead bound */
	int64		hot_ms;			/* SHEAF_HOT_MS from version SHEAF_HOT_FIRST, 1 before (no lead) */
	int64		max_tick;

	int32		shard_id;
	int			shard_bits;
	int			sequence_bits;
	int			time_shift;
	int64		epoch_ms;
	int64		shard_mask;
	int64		shard_field;
	int64		shard_clear;
	int64		seq_mask;
	bool		test_clock;
	int			logical_count;	/* shards added with sheaf.add_shard() */
	int32	   *logical;
	char	   *logical_text;	/* ", logical shards 1, 2" or "", as the SQL version says it */

	/*
	 * The last block this backend read, or PG_INT64_MIN. Safe to keep because the block only grows
	 * (docs/native.md); reset on every reload.
	 */
	int64		block_seen;
} SheafSettings;

extern void sheaf_settings_init(void);
extern SheafSettings *sheaf_settings(void);

#endif
