package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.transforms.windows.WindowRevision;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Many parallel writers against a server with a small lock table (issue 28), each {@link
 * LedgerWriter} in its own thread like the sink's DoFn instances. With an advisory lock per
 * projection, 16 writers of batches of 500 ran PostgreSQL's shared lock table out (SQLSTATE 53200,
 * not retried: the job died); with a row lock per projection they never do. Writers of the same
 * windows, each in its own shuffled order, replay, hold and release what the others write, and the
 * ledger verifies clean.
 */
class ManyWritersTest {
  private static final int WRITERS = 16;
  private static final int REVISIONS = 4;

  private static EmbeddedPostgres server;

  /**
   * A server of its own with a small shared lock table: 10 slots per connection slot, 20
   * connections (PostgreSQL sizes it max_locks_per_transaction x (max_connections + background
   * processes), so about 420 locks; {@link LocalPostgres} keeps the embedded default of 300).
   */
  @BeforeAll
  static void smallLockTable() throws Exception {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("max_locks_per_transaction", "10")
            .setServerConfig("max_connections", "20")
            .setPGStartupWait(java.time.Duration.ofSeconds(60))
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/" + database;
  }

  /**
   * Revision {@code n} of merchant {@code m}'s window: values of both only, so every writer agrees.
   */
  private static WindowRevision revisionOf(int m, int n) {
    return revision(m, 10, n, String.valueOf(m * 10 + n));
  }

  @Test
  void sixteenWritersOfBatchesOf500RunNoLockTableOut() throws Exception {
    writeInParallel(0, 500, 500);
  }

  @Test
  void sixteenWritersOfTheSameWindowsLeaveACleanLedger() throws Exception {
    writeInParallel(300, 0, 150);
  }

  /**
   * {@value #WRITERS} writers, each writing every revision of {@code shared} windows all of them
   * write and of {@code own} windows of its own, shuffled, in batches of {@code batch}.
   */
  private void writeInParallel(int shared, int own, int batch) throws Exception {
    String database = "w" + shared + "_" + own;
    try (Connection c =
            java.sql.DriverManager.getConnection(url("postgres"), LocalPostgres.USER, "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    }
    try (HikariDataSource pool =
        JdbcTarget.of(url(database))
            .withUser(LocalPostgres.USER)
            .openPool("writers", WRITERS, 10_000)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT current_setting('max_locks_per_transaction'),"
                      + " current_setting('max_connections')")) {
        rs.next();
        assertThat(rs.getString(1), equalTo("10"));
        System.out.println(
            "max_locks_per_transaction "
                + rs.getString(1)
                + ", max_connections "
                + rs.getString(2));
      }
      ExecutorService threads = Executors.newFixedThreadPool(WRITERS);
      List<Future<int[]>> done = new ArrayList<>();
      long started = System.nanoTime();
      for (int t = 0; t < WRITERS; t++) {
        Random random = new Random(t);
        int first = (t + 1) * 1_000; // this writer's own merchants: first .. first + own - 1
        done.add(
            threads.submit(
                () -> {
                  LedgerWriter writer = new LedgerWriter(pool, Duration.ofSeconds(60));
                  List<WindowRevision> all = new ArrayList<>();
                  for (int n = 1; n <= REVISIONS; n++) {
                    for (int w = 0; w < shared; w++) {
                      all.add(revisionOf(w, n));
                    }
                    for (int w = 0; w < own; w++) {
                      all.add(revisionOf(first + w, n));
                    }
                  }
                  Collections.shuffle(all, random);
                  int retries = 0;
                  int batches = 0;
                  for (int i = 0; i < all.size(); i += batch) {
                    retries +=
                        writer.write(all.subList(i, Math.min(all.size(), i + batch))).retries();
                    batches++;
                  }
                  return new int[] {batches, retries};
                }));
      }
      int batches = 0;
      int retries = 0;
      for (Future<int[]> f : done) {
        int[] r = f.get(5, TimeUnit.MINUTES);
        batches += r[0];
        retries += r[1];
      }
      threads.shutdown();
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      LedgerVerification v = Ledger.at(pool).verify(Revisions.MODEL);
      System.out.println(
          WRITERS
              + " writers, "
              + batches
              + " batches of up to "
              + batch
              + " records, "
              + retries
              + " retries, "
              + millis
              + " ms; ledger: "
              + v.summary()
              + ", "
              + v.held()
              + " held");
      int windows = shared + WRITERS * own;
      assertThat(
          v.summary(),
          equalTo(
              windows
                  + " projections, "
                  + windows * REVISIONS
                  + " revisions, 0 gaps, 0 mismatches, 0 conflicts"));
      assertThat(v.held(), equalTo(0));
    }
  }
}
