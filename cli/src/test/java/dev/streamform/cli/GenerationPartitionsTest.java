package dev.streamform.cli;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33 item 7, the part {@code run} can check before it reaches a broker: a source's declared
 * partition count is recorded per generation in the ledger, and a generation that has published
 * revisions does not start under another count (docs/semantics.md §9.6).
 */
class GenerationPartitionsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path project;
  private final StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;

  @BeforeEach
  void aKafkaProject() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    declare(3, 1);
    // the broker is unreachable and answers nothing quickly: what run decides before it is tested
    Files.writeString(
        project.resolve("client.properties"),
        "default.api.timeout.ms=1000\n"
            + "request.timeout.ms=500\n"
            + "socket.connection.setup.timeout.ms=200\n"
            + "socket.connection.setup.timeout.max.ms=200\n");
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private void declare(int partitions, int generation) throws Exception {
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: kafka\n    topic: payments\n    partitions: "
            + partitions
            + "\n    schema:\n      merchant_id: int64\n      amount: decimal(12,2)\n"
            + "      paid_at: timestamp\n    event_time: paid_at\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n"
            + "    allowed_lateness: 24h\n    generation: "
            + generation
            + "\n");
  }

  private int run() {
    err = new StringWriter();
    return Streamform.run(
        new PrintWriter(out),
        new PrintWriter(err),
        "run",
        project.toString(),
        "--model",
        "hourly_revenue",
        "--jdbc-url",
        url,
        "--jdbc-user",
        "postgres",
        "--bootstrap-servers",
        "127.0.0.1:1",
        "--kafka-properties",
        project.resolve("client.properties").toString());
  }

  @Test
  void anotherCountForAGenerationThatPublishedIsRefusedANewGenerationIsNot() throws Exception {
    run(); // records 3 for generation 1, then cannot reach the broker
    new LedgerWriter(pool, Duration.ofSeconds(10)).write(List.of(revision(7, 10, 1, "12")));
    declare(4, 1);
    int status = run();
    System.out.println(err);
    assertThat(status, is(1));
    assertThat(
        err.toString(),
        containsString(
            ": source 'payments' declares partitions: 4, but generation 1 of hourly_revenue ran"
                + " with 3 (recorded "));
    assertThat(
        err.toString(),
        containsString(
            "; 1 projection published): a partition count is part of the watermark topology —"
                + " declare a new generation: N in streamform.yml and roll it out (streamform run"
                + " --generation N --shadow), or declare partitions: 3 again\n"));
    declare(4, 2);
    run();
    assertThat(err.toString(), not(containsString("declares partitions")));
  }

  @Test
  void aGenerationThatPublishedNothingTakesTheNewCount() throws Exception {
    run();
    declare(4, 1);
    run();
    assertThat(err.toString(), not(containsString("declares partitions")));
    new LedgerWriter(pool, Duration.ofSeconds(10)).write(List.of(revision(7, 10, 1, "12")));
    declare(3, 1);
    assertThat(run(), is(1));
    assertThat(err.toString(), containsString("ran with 4 (recorded "));
  }
}
