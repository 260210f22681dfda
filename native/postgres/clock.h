/* The generator's clock, as the SQL version reads it (a test install's clock settings included). */
#ifndef SHEAF_CLOCK_H
#define SHEAF_CLOCK_H

#include "settings.h"

/* Milliseconds since the layout's epoch; a test install reads sheaf.clock_ms and sheaf.clock_offset_ms. */
extern int64 sheaf_clock_tick(const SheafSettings *s);

#endif
