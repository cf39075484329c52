package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry time of a database outage (docs/guides/postgresql-revisions.md): it runs from when the
 * database became unavailable, for every writer of that database alike (not from each batch's own
 * first failure), so a longer outage fails at the retry time, saying so.
 */
class OutageDeadlineTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private HikariDataSource pool;

  @BeforeEach
  void pool() {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 2, 1_000);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void theRetryTimeRunsFromTheOutagesStartForEveryWriterOfTheDatabase() throws Exception {
    Unreachable down = new Unreachable(pool, Long.MAX_VALUE);
    CompletableFuture<Throwable> first =
        CompletableFuture.supplyAsync(
            () ->
                assertThrows(
                    Exception.class,
                    () ->
                        new LedgerWriter(down, Duration.ofSeconds(4))
                            .write(List.of(revision(7, 10, 1, "30")))));
    while (down.firstRefusal == 0) {
      Thread.sleep(5);
    }
    long start = down.firstRefusal;
    Thread.sleep(3_000);
    // a second batch, begun 3 s into the outage, gives up with the first at 4 s, not at 7 s
    Exception second =
        assertThrows(
            Exception.class,
            () ->
                new LedgerWriter(down, Duration.ofSeconds(4))
                    .write(List.of(revision(8, 10, 1, "12"))));
    long secondGaveUpAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    first.get(10, TimeUnit.SECONDS);
    assertThat(secondGaveUpAfter, lessThan(5_500L));
    assertThat(second.getMessage(), containsString("gave up after retrying for 4 s"));
  }

  /** {@code target}'s connections, refused as a stopped server's are until {@code upAt}. */
  private static final class Unreachable implements DataSource {
    private final DataSource target;
    private final long upAt;
    volatile long firstRefusal;

    Unreachable(DataSource target, long upAt) {
      this.target = target;
      this.upAt = upAt;
    }

    @Override
    public Connection getConnection() throws SQLException {
      if (System.nanoTime() < upAt) {
        if (firstRefusal == 0) {
          firstRefusal = System.nanoTime();
        }
        throw new SQLTransientConnectionException(
            "Connection is not available",
            "08001",
            new java.net.ConnectException("Connection refused"));
      }
      return target.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
