package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reconcile queue holds one row per reconciled event, by its place in the log: a replay of the
 * same event adds nothing, and two events that share a declared {@code event_id} (a repeat after
 * its duplicates horizon, ADR 0071) are two rows, not one silently dropped.
 */
class ReconcileQueueTest {
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

  private void reconcile(String eventId, int partition, long offset) throws Exception {
    reconcile(eventId, partition, offset, "[]");
  }

  private void reconcile(String eventId, int partition, long offset, String affected)
      throws Exception {
    try (Connection c = pool.getConnection();
        PreparedStatement s = c.prepareStatement(DecisionLedgerSink.INSERT_RECONCILE)) {
      Timestamp t = Timestamp.valueOf("2026-08-30 10:00:00");
      s.setString(1, "receipt_risk");
      s.setString(2, eventId);
      s.setInt(3, partition);
      s.setLong(4, offset);
      s.setTimestamp(5, t);
      s.setTimestamp(6, t);
      s.setBoolean(7, false);
      s.setString(8, affected);
      s.setString(9, "{\"merchant_id\": 7}");
      s.setString(10, "{}");
      s.setString(11, null);
      s.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  private long rows() throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM streamform.decision_reconcile")) {
      r.next();
      return r.getLong(1);
    }
  }

  @Test
  void oneRowPerEventByItsPlaceNotByItsDeclaredId() throws Exception {
    reconcile("r7", 0, 6);
    reconcile("r7", 0, 6); // the same event again (a replay, a restore): nothing new
    assertThat(rows(), is(1L));
    reconcile("r7", 1, 40); // another event with the same declared id, later in the log
    assertThat(rows(), is(2L));
  }

  /**
   * A new generation (or scorer) reconciles the same event against its own decisions: its row is
   * kept beside the old generation's, which names other decisions; a replay of either adds nothing.
   */
  @Test
  void anotherGenerationsReconciliationOfTheSameEventIsKept() throws Exception {
    reconcile("r2", 0, 3, "[\"4b5ab43a\"]");
    reconcile("r2", 0, 3, "[\"fe69ea87\"]");
    assertThat(rows(), is(2L));
    reconcile("r2", 0, 3, "[\"fe69ea87\"]");
    assertThat(rows(), is(2L));
  }
}
