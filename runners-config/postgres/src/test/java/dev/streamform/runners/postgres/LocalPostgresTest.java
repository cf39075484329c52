package dev.streamform.runners.postgres;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class LocalPostgresTest {

  @Test
  void startsStopsAndStartsAgainWithItsDataThenRemovesATemporaryFolder() throws Exception {
    Path data;
    try (LocalPostgres pg = LocalPostgres.temporary()) {
      data = pg.dataDirectory();
      assertThat(pg.jdbcUrl(), equalTo("jdbc:postgresql://127.0.0.1:" + pg.port() + "/postgres"));
      execute(pg, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (41), (1)");

      pg.stop();
      SQLException refused = null;
      try {
        DriverManager.getConnection(pg.jdbcUrl(), LocalPostgres.USER, "").close();
      } catch (SQLException e) {
        refused = e;
      }
      assertThat(
          "connection refused while stopped",
          refused != null && refused.getSQLState().startsWith("08"));

      pg.start();
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), LocalPostgres.USER, "");
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT sum(n), current_setting('listen_addresses') FROM kept")) {
        rs.next();
        assertThat(rs.getInt(1), equalTo(42));
        assertThat(rs.getString(2), equalTo("127.0.0.1"));
      }
      assertThat(Files.isDirectory(data), equalTo(true));
    }
    assertThat(data.toString(), startsWith(System.getProperty("java.io.tmpdir")));
    assertThat("temporary data folder removed", Files.exists(data), equalTo(false));
  }

  private static void execute(LocalPostgres pg, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), LocalPostgres.USER, "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
