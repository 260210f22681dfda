/*
 * The generator's settings, as sheaf._bake() last wrote them, cached in each backend until a
 * function of sheaf's is created or replaced (every change of settings re-bakes them).
 */
#ifndef SHEAF_SETTINGS_H
#define SHEAF_SETTINGS_H

#include "postgres.h"

#include "fmgr.h"

typedef struct SheafSettings
{
	Oid			counter;		/* sheaf.counter: the next id of the open block */
	Oid			block;			/* sheaf.live_block (sheaf.block before version 16): the
								 * last id of the block opened last */
	Oid			next_block;		/* sheaf._next_block(): the slow path */
	FmgrInfo   *next_block_call;	/* its call info, kept: a call sets up the security
									 * definer context once, not once per slow path */
	int32		shard_id;
	int			shard_bits;
	int			sequence_bits;
	int			time_shift;
	int64		epoch_ms;
	int64		shard_mask;
	int64		shard_field;
	int64		shard_clear;
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
