/* The generator's clock (clock.h). */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "clock.h"

/* A test clock setting as the SQL version reads it: unset and '' both mean "not set". */
static bool
test_setting(const char *name, int64 *value)
{
	const char *text = GetConfigOption(name, true, false);

	if (text == NULL || text[0] == '\0')
		return false;
	*value = DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(text)));
	return true;
}

int64
sheaf_clock_tick(const SheafSettings *s)
{
	int64		unix_us = GetCurrentTimestamp() +
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	int64		ms = unix_us >= 0 ? unix_us / 1000 : -((-unix_us + 999) / 1000);

	if (s->test_clock)
	{
		int64		set;
		int64		offset;

		if (test_setting("sheaf.clock_ms", &set))
			ms = set;
		if (test_setting("sheaf.clock_offset_ms", &offset))
			ms += offset;
	}
	return ms - s->epoch_ms;
}
