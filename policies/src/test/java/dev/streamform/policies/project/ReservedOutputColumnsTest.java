package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A query's output column (aggregate or key) named like a field the model's records add beside it
 * (an upsert changelog's {@code op} and {@code __event}, a windowed record's {@code status}, {@code
 * revision}, {@code offsets}, ...) would be overwritten by that field when the record is written,
 * so {@code check} refuses it at the query's line.
 */
class ReservedOutputColumnsTest {
  @TempDir Path dir;

  private static final String UPSERT_ADDS = " (op, __event)";
  private static final String WINDOW_ADDS =
      " (window_start, window_end, window_local, status, revision, predecessor,"
          + " logical_window_id, projection_id, aggregate_digest, offsets, generation)";

  private ProjectFolder upsert(String sql) {
    return ProjectFolder.seed(dir).sql("customer_metrics", sql);
  }

  private ProjectFolder windowed(String sql) {
    return ProjectFolder.seed(dir)
        .models("models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n")
        .sql("customer_metrics", sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {"op", "__event", "OP"})
  void anUpsertAggregateMustNotBeNamedLikeAChangelogField(String name) {
    assertThat(
        upsert(
                "SELECT customer_id,\n  SUM(amount) AS "
                    + name
                    + "\nFROM source('orders') GROUP BY customer_id\n")
            .problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': the query outputs a column"
                + " named '"
                + name
                + "', which an upsert model's changelog adds to every record itself"
                + UPSERT_ADDS
                + ", so its value would be lost — rename it in the query with AS <another name>"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "status",
        "revision",
        "generation",
        "offsets",
        "predecessor",
        "logical_window_id",
        "projection_id",
        "aggregate_digest",
        "window_local",
        "window_start"
      })
  void aWindowedAggregateMustNotBeNamedLikeARevisionField(String name) {
    assertThat(
        windowed(
                "SELECT customer_id,\n  MAX(amount) AS "
                    + name
                    + "\nFROM source('orders') GROUP BY customer_id\n")
            .problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': the query outputs a column"
                + " named '"
                + name
                + "', which a windowed model adds to every record itself"
                + WINDOW_ADDS
                + ", so its value would be lost — rename it in the query with AS <another name>,"
                + " or remove window from the model in streamform.yml"));
  }

  @Test
  void aKeyColumnMustNotBeNamedLikeAChangelogField() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "customer_id: int64", "customer_id: int64\n      op: string"))
            .models("models:\n  customer_metrics:\n    key: [op]\n")
            .sql(
                "customer_metrics",
                "SELECT op, SUM(amount) AS total\nFROM source('orders') GROUP BY op\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:1: model 'customer_metrics': the query outputs a column"
                + " named 'op', which an upsert model's changelog adds to every record itself"
                + UPSERT_ADDS
                + ", so its value would be lost — rename it in the query with AS <another name>"
                + " (op AS <another name>, and name that in key: in streamform.yml)"));
  }

  @Test
  void anUpsertModelMayNameAColumnLikeAWindowField() throws Exception {
    assertThat(
        upsert(
                "SELECT customer_id, COUNT(*) AS status, MAX(amount) AS revision FROM"
                    + " source('orders') GROUP BY customer_id\n")
            .load()
            .models()
            .get("customer_metrics")
            .windowed(),
        is(false));
  }

  @Test
  void aWindowedColumnMustNotBeNamedOp() {
    // a windowed record has no op, but a windowed fixture row refuses the key op (it belongs to
    // upsert fixtures), so no fixture of the model could give the column
    assertThat(
        windowed(
                "SELECT customer_id,\n"
                    + "  COUNT(*) AS op\n"
                    + "FROM source('orders') GROUP BY customer_id\n")
            .problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': the query outputs a column"
                + " named 'op', which no fixture row of a windowed model can give: op is an upsert"
                + " model's change, and a windowed row says its revision and status instead —"
                + " rename it in the query with AS <another name>"));
  }

  @Test
  void aWindowedKeyColumnMustNotBeNamedOp() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "customer_id: int64", "customer_id: int64\n      status: string"))
            .models("models:\n  customer_metrics:\n    key: [op]\n    window: 1h\n")
            .sql(
                "customer_metrics",
                "SELECT status AS op, SUM(amount) AS total\n"
                    + "FROM source('orders') GROUP BY status\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:1: model 'customer_metrics': the query outputs a column"
                + " named 'op', which no fixture row of a windowed model can give: op is an upsert"
                + " model's change, and a windowed row says its revision and status instead —"
                + " rename it in the query with AS <another name> (status AS <another name>, and"
                + " name that in key: in streamform.yml)"));
  }

  @Test
  void aWindowedModelMayNameAColumnOpInCapitals() throws Exception {
    // fixture keys are compared as written: OP is not op there, and a windowed record adds no op
    assertThat(
        windowed("SELECT customer_id, COUNT(*) AS OP FROM source('orders') GROUP BY customer_id\n")
            .load()
            .models()
            .get("customer_metrics")
            .windowed(),
        is(true));
  }

  private ProjectFolder scoring(String sql) {
    return ProjectFolder.seed(dir)
        .models(
            "models:\n  customer_metrics:\n    key: [customer_id]\n    decisions:\n"
                + "      features_over: 1h\n      scorer: com.example.Risk\n")
        .sql("customer_metrics", sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {"event", "route", "score", "revision", "state_revision", "reason"})
  void aFeatureMustNotBeNamedLikeAKeyOfADecisionRow(String name) {
    assertThat(
        scoring(
                "SELECT customer_id,\n  SUM(amount) AS "
                    + name
                    + "\nFROM source('orders') GROUP BY customer_id\n")
            .problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': the query outputs a feature"
                + " named '"
                + name
                + "', which a decision row of the model's fixtures gives itself (event, route,"
                + " score, revision, state_revision, reason), so no fixture row could give the"
                + " feature — rename it in the query with AS <another name>"));
  }

  @Test
  void aFeatureOfALinearModelIsRenamedInItsWeightsToo() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .models(
                "models:\n  customer_metrics:\n    key: [customer_id]\n    decisions:\n"
                    + "      features_over: 1h\n      linear: models/risk.linear.yml\n")
            .write("models/risk.linear.yml", "bias: 0\nweights:\n  score: 1\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, COUNT(*) AS score FROM source('orders') GROUP BY"
                    + " customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:1: model 'customer_metrics': the query outputs a feature"
                + " named 'score', which a decision row of the model's fixtures gives itself"
                + " (event, route, score, revision, state_revision, reason), so no fixture row"
                + " could give the feature — rename it in the query with AS <another name>, and"
                + " weigh that name in models/risk.linear.yml"));
  }

  @Test
  void aScoringModelMayNameAFeatureLikeARecordField() throws Exception {
    // status and op are no keys of a decision row: fixtures compare such features as they are
    assertThat(
        scoring(
                "SELECT customer_id, COUNT(*) AS status, SUM(amount) AS op, MAX(amount) AS Score"
                    + " FROM source('orders') GROUP BY customer_id\n")
            .load()
            .models()
            .get("customer_metrics")
            .decides(),
        is(true));
  }

  @Test
  void aSchemaColumnMustNotBeNamedLikeThePunctuationField() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "customer_id: int64", "customer_id: int64\n      __watermark: timestamp"));
    assertThat(
        project.problems(),
        contains(
            "sources.yml:8: source 'orders', key '__watermark': a column may not be named"
                + " '__watermark': a record with a '__watermark' field is read as a punctuation of"
                + " its partition's watermark, not as an event — rename the column (in the records"
                + " and here)"));
  }
}
