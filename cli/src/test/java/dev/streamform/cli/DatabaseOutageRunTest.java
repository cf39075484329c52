package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code streamform run --jdbc-url} of a scoring model rides out a PostgreSQL restart while its
 * decisions are written, and says so on standard error (docs/decisions/0134): once when the
 * database became unavailable, once when it was back.
 */
@Isolated // stops and starts the module's one PostgreSQL server, which the other classes use
class DatabaseOutageRunTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path dir;

  @Test
  void theDecisionLedgerRidesOutARestartAndTheRunSaysSo() throws Exception {
    String url = POSTGRES.newDatabase();
    Path project = dir.resolve("receipts");
    Files.createDirectories(project);
    Path example = Path.of("../examples/receipts-burst");
    for (String f : List.of("streamform.yml", "sources.yml")) {
      Files.copy(example.resolve(f), project.resolve(f));
    }
    Files.createDirectories(project.resolve("models"));
    try (Stream<Path> models = Files.list(example.resolve("models"))) {
      for (Path m : models.toList()) {
        Files.copy(m, project.resolve("models").resolve(m.getFileName()));
      }
    }
    // one till, a receipt every 5 s: 6,000 receipts, 09:00 to 17:20
    List<String> lines = new ArrayList<>();
    for (int n = 0; n < 6_000; n++) {
      long s = 9 * 3600 + n * 5L;
      lines.add(
          String.format(
              "{\"merchant_id\": %d, \"amount\": %d.0, \"occurred_at\": \"2026-08-30T%s\","
                  + " \"received_at\": \"2026-08-30T%s\"}",
              1 + n % 5, 5 + (n * 37) % 95, time(s), time(s + 20)));
    }
    Files.write(project.resolve("receipts-0.jsonl"), lines);

    java.util.concurrent.atomic.AtomicBoolean ended =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean restarted =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread restart =
        new Thread(
            () -> {
              try (HikariDataSource watch =
                  JdbcTarget.of(url).withUser("postgres").openPool("watch", 2, 1_000)) {
                while (count(watch) == 0) {
                  if (ended.get()) {
                    return;
                  }
                  Thread.sleep(20);
                }
                POSTGRES.server().stop();
                Thread.sleep(2_000);
                POSTGRES.server().start();
                restarted.set(true);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "restart-postgres");
    restart.start();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            "receipt_risk",
            "--jdbc-url",
            url,
            "--jdbc-user",
            LocalPostgres.USER);
    ended.set(true);
    restart.join(30_000);
    assertThat("the database was restarted during the run", restarted.get(), is(true));
    assertThat(out + "\n" + err, status, is(0));
    assertThat(err.toString(), containsString(" is unavailable since "));
    assertThat(err.toString(), containsString("; retrying until "));
    assertThat(err.toString(), containsString(" is back after "));
    try (HikariDataSource pool =
        JdbcTarget.of(url).withUser("postgres").openPool("check", 2, 2_000)) {
      assertThat(
          query(pool, "SELECT count(*) - count(DISTINCT decision_id) FROM streamform.decision"),
          equalTo(0L));
      long decisions = decisionsInTheFile(project);
      assertThat(query(pool, "SELECT count(*) FROM streamform.decision"), equalTo(decisions));
      assertThat(
          out.toString(),
          containsString(
              String.format(
                  java.util.Locale.ROOT,
                  "wrote %,d new decisions to %s as postgres",
                  decisions,
                  url)));
    }
  }

  private static String time(long s) {
    return String.format("%02d:%02d:%02dZ", s / 3600 % 24, s / 60 % 60, s % 60);
  }

  private static long decisionsInTheFile(Path project) throws Exception {
    try (Stream<Path> files = Files.walk(project.resolve("target"))) {
      long n = 0;
      for (Path f :
          files.filter(p -> p.getFileName().toString().endsWith(".decisions.jsonl")).toList()) {
        if (Files.isRegularFile(f)) {
          n += Files.readAllLines(f).stream().filter(l -> !l.isBlank()).count();
        }
      }
      return n;
    }
  }

  private static long count(HikariDataSource pool) {
    try {
      return query(pool, "SELECT count(*) FROM streamform.decision");
    } catch (SQLException e) {
      return 0; // not migrated yet
    }
  }

  private static long query(HikariDataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
