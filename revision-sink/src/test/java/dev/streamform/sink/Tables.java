package dev.streamform.sink;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the ledger's tables hold, as lines a test compares: one per row, cells separated by a space.
 */
final class Tables {
  private Tables() {}

  static List<String> rows(DataSource dataSource, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          cells.add(String.valueOf(rs.getObject(i)));
        }
        out.add(String.join(" ", cells));
      }
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    }
    return out;
  }

  /** Runs {@code sql} (statements separated by ;) in one committed transaction. */
  static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      try {
        s.execute(sql);
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
