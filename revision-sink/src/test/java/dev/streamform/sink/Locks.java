package dev.streamform.sink;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/** Waits, bounded, for another session of the test's database to wait on a lock. */
final class Locks {
  private Locks() {}

  /** Whether a session of this database waited on a lock within {@code within}. */
  static boolean awaitBlocked(DataSource pool, Duration within) throws Exception {
    long until = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND"
                      + " wait_event_type = 'Lock'")) {
        rs.next();
        boolean blocked = rs.getInt(1) > 0;
        if (!c.getAutoCommit()) {
          c.commit();
        }
        if (blocked) {
          return true;
        }
      }
      Thread.sleep(20);
    }
    return false;
  }
}
