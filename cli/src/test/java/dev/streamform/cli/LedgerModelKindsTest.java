package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the commands that read a windowed model's ledger say of a model of another kind, and what
 * the effects commands say of a windowed model without effects: all before any database is reached
 * (the URL names a port where nobody listens).
 */
class LedgerModelKindsTest {
  private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/postgres";

  @TempDir Path dir;
  private Path project;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** A project of every kind: upsert, scoring, windowed without effects, two with effects. */
  @BeforeEach
  void project() throws IOException {
    project = dir.resolve("shop");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n"
            + "  payments:\n"
            + "    connector: file\n"
            + "    path: payments.jsonl\n"
            + "    schema:\n"
            + "      merchant_id: int64\n"
            + "      amount: decimal(12,2)\n"
            + "      paid_at: timestamp\n"
            + "    event_time: paid_at\n"
            + "    watermark: 2m\n"
            + "    late_events: keep\n");
    String effects =
        "    effects:\n"
            + "      - type: reward\n"
            + "        subject: merchant_id\n"
            + "        when: \"revenue >= 100\"\n"
            + "        provider: {kind: webhook, url: \"http://127.0.0.1:1/effects\","
            + " idempotency: key, receipts: true}\n";
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n"
            + "  merchant_spend:\n"
            + "    materialized: upsert\n"
            + "    key: [merchant_id]\n"
            + "  merchant_hourly:\n"
            + "    key: [merchant_id]\n"
            + "    window: 1h\n"
            + "  merchant_rewards:\n"
            + "    key: [merchant_id]\n"
            + "    window: 1h\n"
            + effects
            + "  merchant_rewards_daily:\n"
            + "    key: [merchant_id]\n"
            + "    window: 1d\n"
            + effects
            + "  payment_risk:\n"
            + "    key: [merchant_id]\n"
            + "    decisions:\n"
            + "      features_over: 1h\n"
            + "      linear: models/payment_risk.linear.yml\n"
            + "      contract: as_of_occurrence\n"
            + "      lateness: 10m\n");
    String revenue =
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments') GROUP BY merchant_id\n";
    for (String m :
        List.of(
            "merchant_spend", "merchant_hourly", "merchant_rewards", "merchant_rewards_daily")) {
      Files.writeString(project.resolve("models/" + m + ".sql"), revenue);
    }
    Files.writeString(
        project.resolve("models/payment_risk.sql"),
        "SELECT merchant_id, SUM(amount) AS spend_1h FROM source('payments') GROUP BY"
            + " merchant_id\n");
    Files.writeString(
        project.resolve("models/payment_risk.linear.yml"),
        "bias: 0\nweights: { amount: 0.01, spend_1h: 0.001 }\n");
  }

  private int run(String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.add(
        1
            + (command[0].equals("ledger")
                    || command[0].equals("effects")
                    || command[0].equals("alias")
                ? 1
                : 0),
        project.toString());
    args.addAll(List.of("--jdbc-url", NOWHERE, "--jdbc-user", "postgres"));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  @Test
  void aScoringModelIsSentToTheDecisionsCommands() {
    String[][] commands = {
      {"ledger", "verify"},
      {"ledger", "show"},
      {"effects", "show"},
      {"effects", "pause"},
      {"dispatch", "--once"},
      {"alias", "set", "--generation", "2"},
      {"compare-generations", "--from", "1", "--to", "2"},
    };
    for (String[] c : commands) {
      err.getBuffer().setLength(0);
      List<String> args = new ArrayList<>(List.of(c));
      args.addAll(List.of("--model", "payment_risk"));
      assertThat(String.join(" ", c), run(args.toArray(String[]::new)), is(1));
      String name =
          c[0].equals("ledger") || c[0].equals("effects") || c[0].equals("alias")
              ? c[0] + " " + c[1]
              : c[0];
      assertThat(
          err.toString(),
          is(
              "streamform "
                  + name
                  + ": model 'payment_risk' is a scoring model (decisions:), not a windowed"
                  + " model: its ledger is the decision ledger, read with streamform decisions"
                  + " show|verify --model payment_risk\n"));
    }
  }

  @Test
  void anUpsertModelStillHasNoLedger() {
    assertThat(run("ledger", "verify", "--model", "merchant_spend"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform ledger verify: model 'merchant_spend' is not windowed (no window: in"
                + " streamform.yml): it has a changelog, not revisions, and no ledger\n"));
  }

  @Test
  void pauseAndResumeRefuseAModelWithoutEffectsAsDispatchDoes() {
    for (String[] c :
        new String[][] {{"effects", "pause"}, {"effects", "resume"}, {"dispatch", "--once"}}) {
      err.getBuffer().setLength(0);
      List<String> args = new ArrayList<>(List.of(c));
      args.addAll(List.of("--model", "merchant_hourly"));
      assertThat(String.join(" ", c), run(args.toArray(String[]::new)), is(1));
      String name = c[0].equals("effects") ? c[0] + " " + c[1] : c[0];
      assertThat(
          err.toString(),
          is(
              "streamform "
                  + name
                  + ": model 'merchant_hourly' declares no effects (effects: in"
                  + " streamform.yml)\n"));
    }
  }

  /**
   * A project with no windowed model with effects, without --model: refused with exit 1 as the help
   * lists it ("the model declares no effects"), not as a bad command line (found by an audit:
   * effects pause exited 2), by every effects command alike.
   */
  @Test
  void withoutModelAProjectWithoutEffectsIsRefusedWithExitOne() throws IOException {
    Path yml = project.resolve("streamform.yml");
    String text = Files.readString(yml);
    Files.writeString(
        yml,
        text.substring(0, text.indexOf("  merchant_rewards:\n"))
            + text.substring(text.indexOf("  payment_risk:\n")));
    Files.delete(project.resolve("models/merchant_rewards.sql"));
    Files.delete(project.resolve("models/merchant_rewards_daily.sql"));
    for (String[] c :
        new String[][] {
          {"effects", "show"},
          {"effects", "verify"},
          {"effects", "pause"},
          {"effects", "resume"},
          {"dispatch", "--once"}
        }) {
      err.getBuffer().setLength(0);
      assertThat(String.join(" ", c), run(c), is(1));
      String name = c[0].equals("effects") ? c[0] + " " + c[1] : c[0];
      assertThat(
          err.toString(),
          is(
              "streamform "
                  + name
                  + ": the project has no windowed model with effects (a model with window: and"
                  + " effects: in streamform.yml); its models: merchant_spend, merchant_hourly,"
                  + " payment_risk\n"));
    }
  }

  @Test
  void withoutModelTheEffectsCommandsListOnlyModelsWithEffects() {
    for (String[] c :
        new String[][] {
          {"effects", "show"}, {"effects", "pause"}, {"effects", "resume"}, {"dispatch", "--once"}
        }) {
      err.getBuffer().setLength(0);
      assertThat(String.join(" ", c), run(c), is(2));
      assertThat(
          err.toString(),
          containsString(
              "--model is needed: the project's windowed models with effects are"
                  + " merchant_rewards, merchant_rewards_daily — see"));
    }
    // a ledger command still lists every windowed model
    err.getBuffer().setLength(0);
    assertThat(run("ledger", "verify"), is(2));
    assertThat(
        err.toString(),
        containsString(
            "--model is needed: the project's windowed models are merchant_hourly,"
                + " merchant_rewards, merchant_rewards_daily — see"));
    assertThat(err.toString(), not(containsString("payment_risk,")));
  }
}
