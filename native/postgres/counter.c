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
#include "access/xloginsert.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "counter.h"

/* As commands/sequence.c marks a sequence's page. */
#define SEQ_MAGIC 0x1717

typedef struct sequence_magic
{
	uint32		magic;
} sequence_magic;

#if PG_VERSION_NUM >= 170000
#define MY_LXID (MyProc->vxid.lxid)
#else
#define MY_LXID (MyProc->lxid)
#endif

/* The counter and the transaction that holds its lock, as nextval() takes it once per transaction. */
static Oid	locked_counter = InvalidOid;
static LocalTransactionId locked_in = InvalidLocalTransactionId;

/*
 * The user last found allowed to take values, until a catalog change could change that answer: the
 * counter's ACL (pg_class), a role's membership or superuser flag. nextval() asks every time.
 */
static Oid	allowed_user = InvalidOid;

static void
forget_allowed(Datum arg, int cacheid, uint32 hashvalue)
{
	allowed_user = InvalidOid;
}

void
sheaf_counter_init(void)
{
	CacheRegisterSyscacheCallback(RELOID, forget_allowed, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, forget_allowed, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, forget_allowed, (Datum) 0);
}

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

static void
check_allowed(Relation rel)
{
	Oid			user = GetUserId();

	if (user == allowed_user)
		return;
	if (pg_class_aclcheck(RelationGetRelid(rel), user, ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", RelationGetRelationName(rel))));
	allowed_user = user;
}

static Relation
open_counter(Oid counter)
{
	if (locked_in != MY_LXID || locked_counter != counter)
	{
		/* Held to the transaction's end, as nextval() holds it, whatever subtransaction asks. */
		ResourceOwner owner = CurrentResourceOwner;

		CurrentResourceOwner = TopTransactionResourceOwner;
		LockRelationOid(counter, RowExclusiveLock);
		CurrentResourceOwner = owner;
		locked_in = MY_LXID;
		locked_counter = counter;
	}
	return relation_open(counter, NoLock);
}

int64
sheaf_counter_next(Oid counter, int64 log_ahead)
{
	Relation	rel;
	Buffer		buf;
	Page		page;
	ItemId		item;
	HeapTupleData tuple;
	Form_pg_sequence_data seq;
	int64		result;
	bool		logit;

	if (log_ahead <= 0)
		return nextval_internal(counter, true);

	/* The same refusals as nextval(): a read-only or parallel transaction may not move it. */
	PreventCommandIfReadOnly("nextval()");
	PreventCommandIfParallelMode("nextval()");

	rel = open_counter(counter);
	check_allowed(rel);

	buf = ReadBuffer(rel, 0);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	if (((sequence_magic *) PageGetSpecialPointer(page))->magic != SEQ_MAGIC)
		elog(ERROR, "bad magic number in sequence \"%s\"", RelationGetRelationName(rel));
	item = PageGetItemId(page, FirstOffsetNumber);
	tuple.t_data = (HeapTupleHeader) PageGetItem(page, item);
	tuple.t_len = ItemIdGetLength(item);
	/* A tuple locked by a release before 8.4's fix (as read_seq_tuple() cleans it up). */
	if (HeapTupleHeaderGetRawXmax(tuple.t_data) != InvalidTransactionId)
	{
		UnlockReleaseBuffer(buf);
		relation_close(rel, NoLock);
		return nextval_internal(counter, true);
	}
	seq = (Form_pg_sequence_data) GETSTRUCT(&tuple);

	result = seq->is_called ? seq->last_value + 1 : seq->last_value;
	/* nextval() reports the end of the range in its own words. */
	if (seq->last_value > PG_INT64_MAX - log_ahead - 1)
	{
		UnlockReleaseBuffer(buf);
		relation_close(rel, NoLock);
		return nextval_internal(counter, true);
	}

	/*
	 * Log when the values logged ahead are used up, after setval() (which leaves none), and on the
	 * first change after a checkpoint, whose replay would otherwise not move the counter.
	 */
	logit = !seq->is_called || seq->log_cnt < 1 || PageGetLSN(page) <= GetRedoRecPtr();

	/* A commit that logged the counter flushes that record, as after nextval(). */
	if (logit && RelationNeedsWAL(rel))
		GetTopTransactionId();

	START_CRIT_SECTION();
	MarkBufferDirty(buf);
	if (logit && RelationNeedsWAL(rel))
	{
		xl_seq_rec	record;
		XLogRecPtr	at;

		/* The record holds the tuple as it will be once log_ahead more values are taken. */
		seq->last_value = result + log_ahead;
		seq->is_called = true;
		seq->log_cnt = 0;
		XLogBeginInsert();
		XLogRegisterBuffer(0, buf, REGBUF_WILL_INIT);
#if PG_VERSION_NUM >= 160000
		record.locator = rel->rd_locator;
#else
		record.node = rel->rd_node;
#endif
		XLogRegisterData((char *) &record, sizeof(xl_seq_rec));
		XLogRegisterData((char *) tuple.t_data, tuple.t_len);
		at = XLogInsert(RM_SEQ_ID, XLOG_SEQ_LOG);
		PageSetLSN(page, at);
	}
	seq->log_cnt = logit ? log_ahead : seq->log_cnt - 1;
	seq->last_value = result;
	seq->is_called = true;
	END_CRIT_SECTION();

	UnlockReleaseBuffer(buf);
	relation_close(rel, NoLock);
	return result;
}
