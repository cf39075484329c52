package dev.streamform.sink;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * The ledger's tables, in schema {@value #SCHEMA}, created and migrated by Flyway from {@code
 * db/migration/V*.sql} of this module. Migrating is idempotent and safe to run concurrently (Flyway
 * locks its history table): every sink instance migrates before its first write.
 */
public final class LedgerSchema {
  /** The PostgreSQL schema that holds the ledger. */
  public static final String SCHEMA = "streamform";

  private LedgerSchema() {}

  /**
   * Creates or migrates the ledger's tables; returns how many migrations ran (0 when up to date).
   */
  public static int migrate(DataSource dataSource) {
    MigrateResult result =
        Flyway.configure(LedgerSchema.class.getClassLoader())
            .dataSource(dataSource)
            .schemas(SCHEMA)
            .defaultSchema(SCHEMA)
            .locations("classpath:db/migration")
            .load()
            .migrate();
    return result.migrationsExecuted;
  }
}
