package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The decision ledger is append-only against TRUNCATE too (docs/semantics.md §11), as the
 * correction ledger is (its {@code correction_ledger_no_truncate} statement trigger): a row-level
 * trigger on UPDATE and DELETE does not fire for TRUNCATE, which empties the table at once.
 */
class DecisionLedgerTruncateTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;

  @BeforeEach
  void fresh() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 2_000);
    LedgerSchema.migrate(pool);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  private long count(Statement s, String table) throws SQLException {
    try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
      r.next();
      return r.getLong(1);
    }
  }

  @Test
  void truncatingTheDecisionLedgerIsRefusedAndItsRowsStay() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.executeUpdate(
          "INSERT INTO streamform.decision (decision_id, model, event_id, event_partition,"
              + " event_offset, occurred_at, arrived_at, scored_at, contract, state_cutoff,"
              + " state_revision, features, score, model_digest, preprocessing_digest,"
              + " policy_generation, revision, key_values, record) VALUES ('d1', 'receipt_risk',"
              + " '0-0', 0, 0, now(), now(), now(), 'as_of_occurrence', now(), 1, '{}', 1.0,"
              + " 'm', 'p', 1, 1, '{}', '{}')");
      SQLException refused =
          assertThrows(SQLException.class, () -> s.execute("TRUNCATE streamform.decision"));
      assertThat(refused.getMessage(), containsString("append-only: TRUNCATE refused"));
      assertThat(count(s, "streamform.decision"), is(1L));
    }
  }

  /** The correction ledger's trigger, which the decision ledger's follows. */
  @Test
  void truncatingTheCorrectionLedgerIsRefused() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      SQLException refused =
          assertThrows(
              SQLException.class, () -> s.execute("TRUNCATE streamform.correction_ledger"));
      assertThat(refused.getMessage(), containsString("append-only: TRUNCATE refused"));
    }
  }
}
