/* sheaf.counter's next value, WAL-logged a block ahead (counter.c). */
#ifndef SHEAF_COUNTER_H
#define SHEAF_COUNTER_H

#include "postgres.h"

extern bool sheaf_counter_plain(Oid counter);
/* nextval(counter) when log_ahead is 0 (a counter sheaf_counter_plain() refused). */
extern int64 sheaf_counter_next(Oid counter, int64 log_ahead);

#endif
