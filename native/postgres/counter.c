/*
 * Takes the next value of sheaf.counter as nextval() does, with one difference: a WAL record logs
 * the counter a block of values ahead (docs/native.md, "The counter's WAL"), where nextval() logs
 * 32 values ahead. At a block of 1,024 values a millisecond, nextval() wrote a record for every 32
 * ids; this writes one per block, as often as the slow path already writes the block itself.
 *
 * The tuple keeps nextval()'s meaning (last_value, log_cnt, is_called), so the PL/pgSQL path and
 * setval() share the counter with it; only how far ahead a record logs differs, and a restart after
 * a crash or a promotion takes the counter from the last record, ahead of every value handed out,
 * then rebases onto the clock anyway.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "tcop/utility.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "counter.h"
#include "seqtuple.h"

/*
 * Whether the fast path may take values itself: the counter must be what version 1 created (an
 * increment of 1, no cache, no cycle, up to the largest bigint), or nextval() serves.
 */
bool
sheaf_counter_plain(Oid counter)
{
	HeapTuple	tuple = SearchSysCache1(SEQRELID, ObjectIdGetDatum(counter));
	bool		plain;
	Form_pg_sequence form;

	if (!HeapTupleIsValid(tuple))
		return false;
	form = (Form_pg_sequence) GETSTRUCT(tuple);
	plain = form->seqincrement == 1 && form->seqcache == 1 && !form->seqcycle && form->seqmax == PG_INT64_MAX;
	ReleaseSysCache(tuple);
	return plain;
}

int64
sheaf_counter_next(Oid counter, int64 log_ahead)
{
	Relation	rel;
	SeqTuple	t;
	Form_pg_sequence_data seq;
	int64		result;
	bool		logit;

	if (log_ahead <= 0)
		return nextval_internal(counter, true);

	/* The same refusals as nextval(): a read-only or parallel transaction may not move it. */
	PreventCommandIfReadOnly("nextval()");
	PreventCommandIfParallelMode("nextval()");

	rel = sheaf_sequence_open(counter);
	sheaf_sequence_check(rel, ACL_USAGE | ACL_UPDATE);
	if (!sheaf_seqtuple_lock(rel, BUFFER_LOCK_EXCLUSIVE, &t))
	{
		relation_close(rel, NoLock);
		return nextval_internal(counter, true);
	}
	seq = t.seq;

	result = seq->is_called ? seq->last_value + 1 : seq->last_value;
	/* nextval() reports the end of the range in its own words. */
	if (seq->last_value > PG_INT64_MAX - log_ahead - 1)
	{
		UnlockReleaseBuffer(t.buf);
		relation_close(rel, NoLock);
		return nextval_internal(counter, true);
	}

	/*
	 * Log when the values logged ahead are used up, after setval() (which leaves none), and on the
	 * first change after a checkpoint, whose replay would otherwise not move the counter.
	 */
	logit = !seq->is_called || seq->log_cnt < 1 || PageGetLSN(t.page) <= GetRedoRecPtr();

	/* A commit that logged the counter flushes that record, as after nextval(). */
	if (logit && RelationNeedsWAL(rel))
		GetTopTransactionId();

	START_CRIT_SECTION();
	MarkBufferDirty(t.buf);
	if (logit && RelationNeedsWAL(rel))
	{
		/* The record holds the tuple as it will be once log_ahead more values are taken. */
		seq->last_value = result + log_ahead;
		seq->is_called = true;
		seq->log_cnt = 0;
		sheaf_seqtuple_log(rel, &t);
	}
	seq->log_cnt = logit ? log_ahead : seq->log_cnt - 1;
	seq->last_value = result;
	seq->is_called = true;
	END_CRIT_SECTION();

	UnlockReleaseBuffer(t.buf);
	relation_close(rel, NoLock);
	return result;
}
