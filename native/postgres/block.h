/* The slow path of next_id(): opens the next block, in C where it can (block.c), else in PL/pgSQL. */
#ifndef SHEAF_BLOCK_H
#define SHEAF_BLOCK_H

#include "settings.h"

/* One id from a newly published block, as sheaf._next_block() returns it; the caller needs EXECUTE on it. */
extern int64 sheaf_next_block(const SheafSettings *s);

#endif
