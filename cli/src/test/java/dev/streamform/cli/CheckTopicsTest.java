package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check} refuses a model that writes into a topic a source reads or another model writes,
 * and two sources over one log (ADR 0146); {@code run} refuses the same project before it connects
 * to anything. The project is the audit's: {@code check} said {@code ok: 2 sources ... 2 models (a;
 * b)}, and {@code run --model b} wrote b's changelog into shop.orders, model a's input.
 */
class CheckTopicsTest {
  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private static final String SOURCE =
      """
          connector: kafka
          topic: shop.orders
          schema: { customer_id: int64, amount: "decimal(12,2)", ordered_at: timestamp }
          event_time: ordered_at
      """;

  private void auditProject() throws Exception {
    Files.createDirectories(dir.resolve("models"));
    Files.createDirectories(dir.resolve("fixtures"));
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n  orders:\n" + SOURCE + "  orders_again:\n" + SOURCE + "    watermark: 1h\n");
    Files.writeString(
        dir.resolve("streamform.yml"),
        """
        models:
          a:
            key: [customer_id]
          b:
            key: [customer_id]
            topic: shop.orders
            late_topic: a
            quarantine_topic: a.quarantine
        """);
    Files.writeString(
        dir.resolve("models/a.sql"),
        "SELECT customer_id, SUM(amount) AS s FROM source('orders') GROUP BY customer_id\n");
    Files.writeString(
        dir.resolve("models/b.sql"),
        "SELECT customer_id, SUM(amount) AS s FROM source('orders_again') GROUP BY customer_id\n");
    Files.writeString(
        dir.resolve("fixtures/a.yml"),
        """
        model: a
        given:
          - event: { customer_id: 1, amount: 5, ordered_at: "2026-08-30T10:00:00Z" }
        expect:
          - { op: insert, customer_id: 1, s: 5 }
        """);
  }

  @Test
  void checkRefusesTheAuditsProjectAtEachLaterDeclaration() throws Exception {
    auditProject();
    assertThat(run("check", dir.toString()), is(1));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "sources.yml:9: source 'orders_again', key 'topic': reads topic 'shop.orders', as"
                + " source 'orders' does (line 4): one log would have two clocks, and what is"
                + " produced for one source would be the other's events too — read source('orders')"
                + " in every model of that topic, or name another topic (two clocks over one log"
                + " are two projects)\n"
                + "streamform.yml:6: model 'b', key 'topic': writes its changelog to topic"
                + " 'shop.orders', which source 'orders' reads (sources.yml:4): its records would"
                + " be read as that source's events — name another topic, e.g. topic: b\n"
                + "streamform.yml:7: model 'b', key 'late_topic': writes its late events to topic"
                + " 'a', where model 'a' writes its changelog (line 3, the default <model>): the"
                + " two would be mixed in one topic — name another topic, e.g. late_topic: b.late\n"
                + "streamform.yml:8: model 'b', key 'quarantine_topic': writes its quarantined"
                + " records to topic 'a.quarantine', where model 'a' writes its quarantined records"
                + " (line 3, the default <model>.quarantine): the two would be mixed in one topic —"
                + " name another topic, e.g. quarantine_topic: b.quarantine\n"
                + "4 problems\n"));
  }

  /** run loads the project as check does: refused before any broker is asked. */
  @Test
  void runRefusesTheProjectBeforeItConnects() throws Exception {
    auditProject();
    int status =
        run(
            "run",
            dir.toString(),
            "--model",
            "b",
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--runner",
            "direct");
    assertThat(err.toString(), status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform.yml:6: model 'b', key 'topic': writes its changelog to topic"
                + " 'shop.orders', which source 'orders' reads (sources.yml:4)"));
    assertThat(err.toString(), not(containsString("127.0.0.1:1")));
  }
}
