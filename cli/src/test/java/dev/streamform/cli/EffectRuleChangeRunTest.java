package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Effect rules added (or changed) on a model whose canonical generation already has revisions:
 * {@code run --jdbc-url} evaluates the rules on the revisions it writes only, so it says how many
 * effects of the windows already written the declared rules would prepare, cancel or compensate,
 * and the command that evaluates them (docs/decisions/0149); {@code alias set} then does.
 */
class EffectRuleChangeRunTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path project;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;

  @BeforeEach
  void aWindowedModelOnAFile() throws Exception {
    url = POSTGRES.newDatabase();
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n    watermark: 5m\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n"
            + "    allowed_lateness: 30m\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(
        project.resolve("payments.jsonl"),
        "{\"merchant_id\":7,\"amount\":120.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n"
            + "{\"merchant_id\":8,\"amount\":60.00,\"paid_at\":\"2026-08-30T10:10:00Z\"}\n"
            + "{\"merchant_id\":9,\"amount\":1.00,\"paid_at\":\"2026-08-30T12:00:00Z\"}\n");
  }

  private int streamform(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private int run() {
    return streamform(
        "run",
        project.toString(),
        "--model",
        "hourly_revenue",
        "--jdbc-url",
        url,
        "--jdbc-user",
        "postgres");
  }

  private int ledger(String command, String... more) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    args.addAll(List.of(more));
    return streamform(args.toArray(String[]::new));
  }

  private void declareReward(String when) throws Exception {
    Path models = project.resolve("streamform.yml");
    String text = Files.readString(models);
    int at = text.indexOf("    effects:\n");
    Files.writeString(
        models,
        (at < 0 ? text : text.substring(0, at))
            + "    effects:\n      - type: reward\n        subject: merchant_id\n"
            + "        when: \""
            + when
            + "\"\n        provider: {kind: webhook, url: \"http://127.0.0.1:1/effects\","
            + " idempotency: key, receipts: true}\n");
  }

  @Test
  void aRuleAddedAfterTheWindowsWereWrittenIsNamedWithTheCommandThatEvaluatesIt() throws Exception {
    assertThat(err.toString(), run(), is(0));
    declareReward("revenue >= 100");
    assertThat(err.toString(), run(), is(0));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: hourly_revenue: the declared effect rules would prepare 1 effect, for"
                + " windows of generation 1 written before them, that this run does not evaluate"
                + " (a run evaluates the rules on the revisions it writes): streamform alias set "
                + project
                + " --model hourly_revenue --generation 1 --jdbc-url <url> evaluates them\n"));
    assertThat(ledger("effects show"), is(0));
    assertThat(out.toString(), containsString("hourly_revenue: 0 effects"));

    // the command it names prepares the effect; the next run has nothing to say
    assertThat(err.toString(), ledger("alias set", "--generation", "1"), is(0));
    assertThat(out.toString(), containsString("1 prepared"));
    assertThat(err.toString(), run(), is(0));
    assertThat(err.toString(), not(containsString("would prepare")));

    // a lower threshold: the merchant of 60.00 is newly true
    declareReward("revenue >= 50");
    assertThat(err.toString(), run(), is(0));
    assertThat(
        err.toString(), containsString("would prepare 1 effect, for windows of generation 1"));
  }

  @Test
  void rulesDeclaredBeforeTheFirstRunSayNothing() throws Exception {
    declareReward("revenue >= 100");
    assertThat(err.toString(), run(), is(0));
    assertThat(err.toString(), not(containsString("would prepare")));
    assertThat(ledger("effects show"), is(0));
    assertThat(out.toString(), containsString("hourly_revenue: 1 effect"));
  }
}
