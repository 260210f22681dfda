/* sheaf's sequences read and set in place (seqtuple.c). */
#ifndef SHEAF_SEQTUPLE_H
#define SHEAF_SEQTUPLE_H

#include "postgres.h"

#include "access/htup_details.h"
#include "commands/sequence.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/relcache.h"

/* A sequence's one tuple, its page's buffer pinned and locked. */
typedef struct SeqTuple
{
	Buffer		buf;
	Page		page;
	HeapTupleData tuple;
	Form_pg_sequence_data seq;
} SeqTuple;

extern void sheaf_seqtuple_init(void);

/* Opens `sequence`, locked as nextval() locks it: once per transaction, held to its end. */
extern Relation sheaf_sequence_open(Oid sequence);

/* Raises nextval()'s error unless the current user holds `mode` on it; a grant found is kept. */
extern void sheaf_sequence_check(Relation rel, AclMode mode);

/*
 * Pins and locks the tuple in buffer lock `mode`; false, with nothing pinned, for a tuple that
 * commands/sequence.c must clean up first (the caller then goes through it).
 */
extern bool sheaf_seqtuple_lock(Relation rel, int mode, SeqTuple *t);

/* WAL-logs the tuple as it stands, as commands/sequence.c logs a sequence; in a critical section. */
extern void sheaf_seqtuple_log(Relation rel, SeqTuple *t);

/*
 * As pg_sequence_last_value(): false when it was never called. Its privilege check is asked only
 * for `required` (a grant found is kept), none for ACL_NO_RIGHTS.
 */
extern bool sheaf_sequence_last(Oid sequence, AclMode required, int64 *value);

/* As setval(sequence, value, is_called), without its privilege check. */
extern void sheaf_sequence_set(Oid sequence, int64 value, bool is_called);

#endif
