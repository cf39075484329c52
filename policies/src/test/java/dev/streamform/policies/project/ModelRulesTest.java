package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each rule of a model in {@code streamform.yml} and its query, and the message it gives. */
class ModelRulesTest {
  @TempDir Path dir;

  private ProjectFolder withModel(String keys) {
    return ProjectFolder.seed(dir).models("models:\n  customer_metrics:\n" + keys);
  }

  @Test
  void retentionNeedsAnEventTimeSourceUpstream() {
    ProjectFolder project =
        withModel("    materialized: upsert\n    key: [customer_id]\n    retention: 30d\n")
            .sources(
                """
                sources:
                  orders:
                    connector: kafka
                    topic: orders
                    schema:
                      customer_id: int64
                      amount: decimal(12,2)
                      ordered_at: timestamp
                """);
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'retention': retention needs an"
                + " event-time source upstream; source 'orders' has no event_time, so there is no"
                + " clock to measure it by — add event_time: <timestamp column> to source 'orders'"
                + " in sources.yml, or remove retention"));
  }

  @Test
  void keyIsRequired() {
    assertThat(
        withModel("    materialized: upsert\n").problems(),
        hasItem(
            "streamform.yml:3: model 'customer_metrics', key 'key': required key is missing"
                + " — add key: [<column>, ...] naming the columns the query groups by"));
  }

  @Test
  void keyIsAList() {
    assertThat(
        withModel("    key: customer_id\n").problems(),
        hasItem(
            "streamform.yml:3: model 'customer_metrics', key 'key': expected a list, got"
                + " 'customer_id' — write key: [customer_id]"));
  }

  @Test
  void keyIsNotEmpty() {
    assertThat(
        withModel("    key: []\n").problems(),
        hasItem(
            "streamform.yml:3: model 'customer_metrics', key 'key': is empty"
                + " — name the columns the query groups by, e.g. key: [customer_id]"));
  }

  @Test
  void keyMustBeAColumnTheQueryProduces() {
    assertThat(
        withModel("    key: [customer]\n").problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics', key 'key': 'customer' is not a column the"
                + " query produces (it produces customer_id, total_spend) — did you mean"
                + " 'customer_id'? name the query's GROUP BY columns in key:"));
  }

  @Test
  void keyMustNotBeAnAggregate() {
    assertThat(
        withModel("    key: [total_spend]\n").problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics', key 'key': 'total_spend' is an aggregate,"
                + " not a GROUP BY column of the query — name the query's GROUP BY columns in key:"
                + " [customer_id]"));
  }

  @Test
  void keyMustBeTheWholeGroupBy() {
    ProjectFolder project =
        withModel("    key: [customer_id]\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, amount, COUNT(*) AS n FROM source('orders') GROUP BY"
                    + " customer_id, amount\n");
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics', key 'key': [customer_id] is not the"
                + " query's GROUP BY [customer_id, amount], so one key could have several rows —"
                + " write key: [customer_id, amount]"));
  }

  @Test
  void keyAdviceNamesTheGroupByInItsOrderUnderTheSelectedNames() {
    ProjectFolder project =
        withModel("    key: [customer_id]\n")
            .sql(
                "customer_metrics",
                "SELECT amount AS a, customer_id, COUNT(*) AS n FROM source('orders') GROUP BY"
                    + " customer_id, amount\n");
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics', key 'key': [customer_id] is not the"
                + " query's GROUP BY [customer_id, a], so one key could have several rows —"
                + " write key: [customer_id, a]"));
  }

  @Test
  void aGroupByColumnSelectedTwiceIsRefusedInItsQueryNotAdvisedInKey() {
    ProjectFolder project =
        withModel("    key: [customer_id]\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, customer_id AS c2, COUNT(*) AS n FROM source('orders')"
                    + " GROUP BY customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:1: model 'customer_metrics': GROUP BY column `customer_id`"
                + " is selected twice (also"
                + " at line 1); select it once, under the name you want with AS (a key column has"
                + " one name in the output)"));
  }

  @Test
  void materializedIsUpsert() {
    assertThat(
        withModel("    materialized: table\n    key: [customer_id]\n").problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics', key 'materialized': 'table' is not one of"
                + " upsert — write materialized: upsert"));
  }

  @Test
  void unknownModelKey() {
    assertThat(
        withModel("    key: [customer_id]\n    retension: 30d\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'retension': unknown key — did you"
                + " mean 'retention'? (known keys: materialized, key, retention, window,"
                + " allowed_lateness, early_results, generation, topic, late_topic,"
                + " quarantine_topic, effects, decisions, time_zone, week_starts)"));
  }

  @Test
  void badRetention() {
    assertThat(
        withModel("    key: [customer_id]\n    retention: -1d\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'retention': bad duration: '-1d' is"
                + " not a duration (a duration cannot be negative); write a whole number and a"
                + " unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d — e.g. retention: 30d"));
  }

  @Test
  void allowedLatenessNeedsAWindow() {
    assertThat(
        withModel("    key: [customer_id]\n    allowed_lateness: 10m\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'allowed_lateness': allowed_lateness"
                + " applies to windowed models only — add window: <duration> or remove"
                + " allowed_lateness"));
  }

  @Test
  void missingQueryFile() {
    assertThat(
        ProjectFolder.seed(dir).delete("models/customer_metrics.sql").problems(),
        contains(
            "streamform.yml:3: model 'customer_metrics': has no query: models/customer_metrics.sql"
                + " does not exist — create models/customer_metrics.sql with SELECT <key columns>,"
                + " <aggregates> FROM source('<source>') GROUP BY <key columns>"));
  }

  @Test
  void queryMustReadADeclaredSource() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sql(
                "customer_metrics",
                "SELECT customer_id, SUM(amount) AS total_spend\n"
                    + "FROM source('order')\n"
                    + "GROUP BY customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': reads source 'order', which"
                + " sources.yml does not declare — did you mean source('orders')?"));
  }

  @Test
  void queryThatDoesNotParseNamesItsFile() {
    ProjectFolder project =
        ProjectFolder.seed(dir)
            .sql(
                "customer_metrics",
                "SELECT customer_id,\nSUM(amount) AS total_spend\nFROM source('orders'\n");
    assertThat(project.problems().size(), org.hamcrest.Matchers.is(1));
    assertThat(
        project.problems().get(0),
        org.hamcrest.Matchers.startsWith("models/customer_metrics.sql:"));
  }

  @Test
  void queryFileWithoutADeclaration() {
    ProjectFolder project = ProjectFolder.seed(dir).sql("customer_metric", ProjectFolder.SQL);
    assertThat(
        project.problems(),
        contains(
            "models/customer_metric.sql: no model 'customer_metric' in streamform.yml — did you"
                + " mean 'customer_metrics'? rename the file, or declare customer_metric: under"
                + " models: in streamform.yml, or delete the file"));
  }

  @Test
  void unusableModelName() {
    assertThat(
        ProjectFolder.seed(dir)
            .models(
                """
                models:
                  customer-metrics:
                    key: [customer_id]
                """)
            .problems(),
        hasItem(
            "streamform.yml:2: key 'customer-metrics': 'customer-metrics' is not a usable model"
                + " name (it names models/customer-metrics.sql) — use ASCII letters (a-z, A-Z),"
                + " digits and _ (starting with a letter or _)"));
  }
}
