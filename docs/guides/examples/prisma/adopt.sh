# Baselines a PostgreSQL database that sheaf is installed on and `sheaf migrate` converted, so that
# Prisma Migrate takes it over: run once from the app's root, with DATABASE_URL set and
# prisma.config.ts as in this folder. test/guides/prisma-adopt.test.ts runs this file.
set -e

# sheaf's install SQL, for the shadow database (prisma.config.ts reads it). Never connects.
npx sheaf install --print --url postgres:// > prisma/sheaf.sql

# The schema as Prisma reads the database: every sheaf key is @default(dbgenerated("sheaf.next_id()")).
npx prisma db pull

# The baseline: what the schema holds, as SQL from an empty database.
mkdir -p prisma/migrations/0_init
npx prisma migrate diff --from-empty --to-schema prisma/schema.prisma --script > prisma/migrations/0_init/migration.sql

# Recorded as applied, without running it: the database has all of it already.
npx prisma migrate resolve --applied 0_init
