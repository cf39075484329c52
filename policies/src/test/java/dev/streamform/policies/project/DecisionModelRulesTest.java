package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.ModelDeclaration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of a scoring model's {@code decisions:} (docs/semantics.md §11) and the messages they
 * give.
 */
class DecisionModelRulesTest {
  @TempDir Path dir;

  private static final String LINEAR =
      "bias: -0.5\nweights:\n  amount: 0.01\n  total_spend: 0.001\n";

  /** The seed project with a scoring model whose decisions: are {@code decisions} (from line 5). */
  private ProjectFolder withDecisions(String decisions) {
    return ProjectFolder.seed(dir)
        .models(
            "models:\n  customer_metrics:\n    key: [customer_id]\n    decisions:\n" + decisions)
        .write("models/risk.linear.yml", LINEAR);
  }

  @Test
  void aScoringModelLoadsWithItsDefaultsAndItsLinearModelsDigest() throws Exception {
    ModelDeclaration m =
        withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .load()
            .models()
            .get("customer_metrics");
    DecisionsSpec d = m.decisions().get();
    assertThat(m.decides(), is(true));
    assertThat(d.featuresOver(), is(Duration.ofHours(1)));
    assertThat(d.contract(), is(DecisionsSpec.Contract.AS_OF_OCCURRENCE));
    assertThat(d.lateness(), is(Duration.ZERO));
    assertThat(d.lateAction(), is(DecisionsSpec.LateAction.IGNORE));
    assertThat(d.lateUpdatesState(), is(false));
    assertThat(d.maxClockSkew(), is(Optional.empty()));
    assertThat(d.linear().get().weights(), is(Map.of("amount", 0.01, "total_spend", 0.001)));
    assertThat(d.linear().get().bias(), is(-0.5));
    // the digest is the SHA-256 of the file as written
    assertThat(
        d.linear().get().digest(),
        is(
            HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest(LINEAR.getBytes(StandardCharsets.UTF_8)))));
  }

  @Test
  void everyKeyIsRead() throws Exception {
    DecisionsSpec d =
        withDecisions(
                "      features_over: 30m\n"
                    + "      scorer: com.example.Risk\n"
                    + "      contract: latest_available\n"
                    + "      lateness: 10m\n"
                    + "      late_action: reconcile\n"
                    + "      late_updates_state: true\n"
                    + "      max_clock_skew: 5m\n")
            .load()
            .models()
            .get("customer_metrics")
            .decisions()
            .get();
    assertThat(d.scorer(), is(Optional.of("com.example.Risk")));
    assertThat(d.contract(), is(DecisionsSpec.Contract.LATEST_AVAILABLE));
    assertThat(d.lateness(), is(Duration.ofMinutes(10)));
    assertThat(d.lateAction(), is(DecisionsSpec.LateAction.RECONCILE));
    assertThat(d.lateUpdatesState(), is(true));
    assertThat(d.maxClockSkew(), is(Optional.of(Duration.ofMinutes(5))));
  }

  @Test
  void aScoringModelNeedsAModelToScoreWith() {
    assertThat(
        withDecisions("      features_over: 1h\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'decisions': names no model to score"
                + " with — give linear: models/<model>.linear.yml (bias and weights) or scorer: <a"
                + " Scorer class>"));
  }

  @Test
  void aLateActionIsOneOfThree() {
    assertThat(
        withDecisions(
                "      features_over: 1h\n      linear: models/risk.linear.yml\n"
                    + "      late_action: overwrite\n")
            .problems(),
        contains(
            "streamform.yml:7: model 'customer_metrics', key 'decisions.late_action': 'overwrite'"
                + " is not one of ignore, revise, reconcile — write late_action: ignore, revise or"
                + " reconcile"));
  }

  /**
   * Every feature is read as a number for the scorer: MIN or MAX of a timestamp passed check and
   * failed the first decision with a class cast (review of scoring #3).
   */
  @Test
  void aFeatureMustBeANumber() {
    ProjectFolder p =
        withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, SUM(amount) AS total_spend,\n"
                    + "  MIN(ordered_at) AS first_at\n"
                    + "FROM source('orders') GROUP BY customer_id\n");
    assertThat(
        p.problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': feature 'first_at' is"
                + " MIN(ordered_at) of a timestamp column: a scoring model's features are numbers"
                + " its scorer reads — aggregate a numeric column of source 'orders' (int64, double"
                + " or decimal), or count it, e.g. COUNT(ordered_at) AS ordered_at_count"));
  }

  /** A count is a number whatever it counts: COUNT of a timestamp is a feature. */
  @Test
  void aCountOfATimestampIsAFeature() throws Exception {
    ModelDeclaration m =
        withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, SUM(amount) AS total_spend,\n"
                    + "  COUNT(ordered_at) AS orders\n"
                    + "FROM source('orders') GROUP BY customer_id\n")
            .load()
            .models()
            .get("customer_metrics");
    assertThat(m.decides(), is(true));
  }

  @Test
  void aWeightMustNameAFeatureOrANumericColumn() {
    ProjectFolder p =
        withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .write("models/risk.linear.yml", "weights:\n  spend: 0.01\n");
    assertThat(
        p.problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'decisions.linear':"
                + " models/risk.linear.yml: weight 'spend' names no feature of the query and no"
                + " numeric column of source 'orders' — weigh one of: amount, customer_id,"
                + " total_spend"));
  }

  @Test
  void aWeightOrBiasMustBeAFiniteNumber() {
    for (String linear :
        new String[] {
          "weights:\n  amount: .nan\n",
          "weights:\n  amount: 1e400\n",
          "bias: -.inf\nweights:\n  amount: 1\n"
        }) {
      ProjectFolder p =
          withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
              .write("models/risk.linear.yml", linear);
      assertThat(linear, p.problems(), hasSize(1));
      assertThat(
          linear,
          p.problems().get(0),
          containsString(
              "models/risk.linear.yml "
                  + (linear.startsWith("bias") ? "bias" : "weight 'amount'")));
      assertThat(linear, p.problems().get(0), containsString("is not a finite number"));
    }
  }

  @Test
  void aScoringModelHasNoWindow() {
    assertThat(
        withDecisions("      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .models(
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    key: [customer_id]\n"
                    + "    window: 1h\n"
                    + "    decisions:\n"
                    + "      features_over: 1h\n"
                    + "      linear: models/risk.linear.yml\n")
            .problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': a scoring model (decisions)"
                + " keeps its features for its range and lateness; it has no window — remove"
                + " window, or move decisions to a model of its own"));
  }
}
