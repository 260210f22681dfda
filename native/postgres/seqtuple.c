/*
 * sheaf's sequences read and set in place, with the effect of pg_sequence_last_value() and
 * setval() on the tuple, without what those add around it: a privilege check on every call, an
 * exclusive buffer lock to read, and the session's sequence cache (sheaf's sequences cache one
 * value, so there is nothing cached to forget; a sequence altered to cache more goes to setval()).
 *
 * The slow path (block.c) runs as the owner of schema sheaf, whose sequences these are, and reads
 * and sets them many times a millisecond across sessions; the fast path checks its caller's right
 * once per user and catalog change (sheaf_sequence_check()).
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "seqtuple.h"

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

/* The sequences this transaction has locked, as init_sequence() locks each once per transaction. */
#define LOCKS_KEPT 8
static LocalTransactionId locked_in = InvalidLocalTransactionId;
static Oid	locked[LOCKS_KEPT];
static int	locked_count = 0;

/*
 * The privileges last found granted, until a catalog change could change the answer: a relation's
 * ACL (pg_class), a role's membership or superuser flag. pg_class_aclcheck() asks every time.
 */
typedef struct Granted
{
	Oid			relation;
	AclMode		mode;
	Oid			user;
} Granted;

#define GRANTS_KEPT 4
static Granted granted[GRANTS_KEPT];
static int	granted_count = 0;

static void
forget_granted(Datum arg, int cacheid, uint32 hashvalue)
{
	granted_count = 0;
}

void
sheaf_seqtuple_init(void)
{
	CacheRegisterSyscacheCallback(RELOID, forget_granted, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, forget_granted, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, forget_granted, (Datum) 0);
}

void
sheaf_sequence_check(Relation rel, AclMode mode)
{
	Oid			relation = RelationGetRelid(rel);
	Oid			user = GetUserId();

	for (int i = 0; i < granted_count; i++)
		if (granted[i].relation == relation && granted[i].mode == mode && granted[i].user == user)
			return;
	if (pg_class_aclcheck(relation, user, mode) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", RelationGetRelationName(rel))));
	if (granted_count == GRANTS_KEPT)
		granted_count = 0;
	granted[granted_count++] = (Granted) {relation, mode, user};
}

Relation
sheaf_sequence_open(Oid sequence)
{
	bool		held = false;

	if (locked_in != MY_LXID)
	{
		locked_in = MY_LXID;
		locked_count = 0;
	}
	for (int i = 0; i < locked_count && !held; i++)
		held = locked[i] == sequence;
	if (!held)
	{
		/* Held to the transaction's end, as nextval() holds it, whatever subtransaction asks. */
		ResourceOwner owner = CurrentResourceOwner;

		CurrentResourceOwner = TopTransactionResourceOwner;
		LockRelationOid(sequence, RowExclusiveLock);
		CurrentResourceOwner = owner;
		if (locked_count < LOCKS_KEPT)
			locked[locked_count++] = sequence;
	}
	return relation_open(sequence, NoLock);
}

bool
sheaf_seqtuple_lock(Relation rel, int mode, SeqTuple *t)
{
	ItemId		item;

	t->buf = ReadBuffer(rel, 0);
	LockBuffer(t->buf, mode);
	t->page = BufferGetPage(t->buf);
	if (((sequence_magic *) PageGetSpecialPointer(t->page))->magic != SEQ_MAGIC)
		elog(ERROR, "bad magic number in sequence \"%s\"", RelationGetRelationName(rel));
	item = PageGetItemId(t->page, FirstOffsetNumber);
	t->tuple.t_data = (HeapTupleHeader) PageGetItem(t->page, item);
	t->tuple.t_len = ItemIdGetLength(item);
	/* A tuple locked by a release before 8.4's fix: read_seq_tuple() cleans it up. */
	if (HeapTupleHeaderGetRawXmax(t->tuple.t_data) != InvalidTransactionId)
	{
		UnlockReleaseBuffer(t->buf);
		return false;
	}
	t->seq = (Form_pg_sequence_data) GETSTRUCT(&t->tuple);
	return true;
}

/* pg_sequence_last_value(sequence) itself: false when it was never called. */
static bool
last_value_by_sql(Oid sequence, int64 *value)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ObjectIdGetDatum(sequence);
	fcinfo->args[0].isnull = false;
	result = pg_sequence_last_value(fcinfo);
	if (fcinfo->isnull)
		return false;
	*value = DatumGetInt64(result);
	return true;
}

bool
sheaf_sequence_last(Oid sequence, AclMode required, int64 *value)
{
	Relation	rel = sheaf_sequence_open(sequence);
	SeqTuple	t;
	bool		called;

	if (required != ACL_NO_RIGHTS)
		sheaf_sequence_check(rel, required);
	if (!sheaf_seqtuple_lock(rel, BUFFER_LOCK_SHARE, &t))
	{
		relation_close(rel, NoLock);
		return last_value_by_sql(sequence, value);
	}
	called = t.seq->is_called;
	*value = t.seq->last_value;
	UnlockReleaseBuffer(t.buf);
	relation_close(rel, NoLock);
	return called;
}

/* Whether setval() may be done in place: bounds that take the value, and one value cached. */
static bool
settable(Oid sequence, int64 value)
{
	HeapTuple	tuple = SearchSysCache1(SEQRELID, ObjectIdGetDatum(sequence));
	Form_pg_sequence form;
	bool		ok;

	if (!HeapTupleIsValid(tuple))
		return false;
	form = (Form_pg_sequence) GETSTRUCT(tuple);
	ok = form->seqcache == 1 && value >= form->seqmin && value <= form->seqmax;
	ReleaseSysCache(tuple);
	return ok;
}

void
sheaf_sequence_set(Oid sequence, int64 value, bool is_called)
{
	Relation	rel;
	SeqTuple	t;

	if (!settable(sequence, value))
	{
		/* setval() raises the error for a value out of bounds, and forgets cached values. */
		DirectFunctionCall3(setval3_oid, ObjectIdGetDatum(sequence), Int64GetDatum(value), BoolGetDatum(is_called));
		return;
	}
	rel = sheaf_sequence_open(sequence);
	if (!rel->rd_islocaltemp)
		PreventCommandIfReadOnly("setval()");
	PreventCommandIfParallelMode("setval()");
	if (!sheaf_seqtuple_lock(rel, BUFFER_LOCK_EXCLUSIVE, &t))
	{
		relation_close(rel, NoLock);
		DirectFunctionCall3(setval3_oid, ObjectIdGetDatum(sequence), Int64GetDatum(value), BoolGetDatum(is_called));
		return;
	}

	/* A commit that logged the sequence flushes that record, as after setval(). */
	if (RelationNeedsWAL(rel))
		GetTopTransactionId();

	START_CRIT_SECTION();
	t.seq->last_value = value;
	t.seq->is_called = is_called;
	t.seq->log_cnt = 0;
	MarkBufferDirty(t.buf);
	if (RelationNeedsWAL(rel))
		sheaf_seqtuple_log(rel, &t);
	END_CRIT_SECTION();

	UnlockReleaseBuffer(t.buf);
	relation_close(rel, NoLock);
}

void
sheaf_seqtuple_log(Relation rel, SeqTuple *t)
{
	xl_seq_rec	record;
	XLogRecPtr	at;

	XLogBeginInsert();
	XLogRegisterBuffer(0, t->buf, REGBUF_WILL_INIT);
#if PG_VERSION_NUM >= 160000
	record.locator = rel->rd_locator;
#else
	record.node = rel->rd_node;
#endif
	XLogRegisterData((char *) &record, sizeof(xl_seq_rec));
	XLogRegisterData((char *) t->tuple.t_data, t->tuple.t_len);
	at = XLogInsert(RM_SEQ_ID, XLOG_SEQ_LOG);
	PageSetLSN(t->page, at);
}
