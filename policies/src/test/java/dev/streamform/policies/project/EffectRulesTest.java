package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.digest.DeclarationDigest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each rule of a windowed model's {@code effects:} (docs/semantics.md §10) in {@code
 * streamform.yml}, and its message.
 */
class EffectRulesTest {
  @TempDir Path dir;

  private static final String PROVIDER =
      "{kind: webhook, url: \"http://127.0.0.1:8099/rewards\", idempotency: key, receipts: true}";

  /** The seed's model, windowed, with {@code more} from line 5. */
  private ProjectFolder withModel(String more) {
    return ProjectFolder.seed(dir)
        .models("models:\n  customer_metrics:\n    key: [customer_id]\n    window: 1h\n" + more);
  }

  /** One effect in block style: its keys from line 6. */
  private ProjectFolder withEffect(String keys) {
    return withModel("    effects:\n      - " + keys.strip().replace("\n", "\n        ") + "\n");
  }

  private static final String TYPE = "type: reward\n";
  private static final String SUBJECT = "subject: customer_id\n";
  private static final String WHEN = "when: \"total_spend >= 1000\"\n";
  private static final String WITH_PROVIDER = "provider: " + PROVIDER + "\n";

  @Test
  void aWellDeclaredEffectLoads() throws Exception {
    ModelDeclaration m =
        withEffect(TYPE + SUBJECT + WHEN + WITH_PROVIDER).load().models().get("customer_metrics");
    assertThat(
        m.effects(),
        is(
            List.of(
                EffectDeclaration.webhook(
                    "reward",
                    "customer_id",
                    "total_spend >= 1000",
                    "http://127.0.0.1:8099/rewards",
                    true,
                    true))));
  }

  @Test
  void modeIncrementalLoadsAndAnotherModeIsNamed() throws Exception {
    ModelDeclaration m =
        withEffect(TYPE + SUBJECT + WHEN + "mode: incremental\n" + WITH_PROVIDER)
            .load()
            .models()
            .get("customer_metrics");
    assertThat(m.effects().get(0).incremental(), is(true));
    ModelDeclaration once =
        withEffect(TYPE + SUBJECT + WHEN + "mode: once\n" + WITH_PROVIDER)
            .load()
            .models()
            .get("customer_metrics");
    assertThat(once.effects().get(0).incremental(), is(false));
    assertThat(
        DeclarationDigest.of(once),
        is(
            DeclarationDigest.of(
                withEffect(TYPE + SUBJECT + WHEN + WITH_PROVIDER)
                    .load()
                    .models()
                    .get("customer_metrics"))));
    assertThat(
        withEffect(TYPE + SUBJECT + WHEN + "mode: delta\n" + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].mode': 'delta' is neither"
                + " once nor incremental — write mode: incremental when the provider takes"
                + " adjustments (a correction after the effect was sent becomes a delta effect),"
                + " else mode: once (the default: a compensation record for a person)"));
  }

  @Test
  void theFlowStyleOfTheReadmeLoadsToo() throws Exception {
    ModelDeclaration m =
        withModel(
                "    effects: [{type: reward, subject: customer_id, when: \"total_spend >= 1000\","
                    + " provider: {kind: webhook, url: \"https://rewards.example/hook\","
                    + " idempotency: none, receipts: false}}]\n")
            .load()
            .models()
            .get("customer_metrics");
    assertThat(m.effects().get(0).idempotencyKeys(), is(false));
    assertThat(m.effects().get(0).receiptQueries(), is(false));
    assertThat(m.effects().get(0).providerUrl(), is("https://rewards.example/hook"));
  }

  @Test
  void effectsAreInTheDigestAndNoEffectsLeaveItAsItWas() throws Exception {
    ModelDeclaration plain = withModel("").load().models().get("customer_metrics");
    ModelDeclaration with =
        withEffect(TYPE + SUBJECT + WHEN + WITH_PROVIDER).load().models().get("customer_metrics");
    ModelDeclaration other =
        withEffect(TYPE + SUBJECT + "when: \"total_spend >= 2000\"\n" + WITH_PROVIDER)
            .load()
            .models()
            .get("customer_metrics");
    assertThat(DeclarationDigest.canonicalForm(plain).contains("effects"), is(false));
    assertThat(DeclarationDigest.of(with), not(DeclarationDigest.of(plain)));
    assertThat(DeclarationDigest.of(with), not(DeclarationDigest.of(other)));
    assertThat(
        DeclarationDigest.canonicalForm(with),
        is(
            DeclarationDigest.canonicalForm(plain)
                .replace(
                    ";generation=1;",
                    ";effects=[{\"provider\":{\"idempotency\":\"key\",\"kind\":\"webhook\",\"receipts\":true,"
                        + "\"url\":\"http://127.0.0.1:8099/rewards\"},\"subject\":\"customer_id\",\"type\":\"reward\",\"when\":\"total_spend"
                        + " >= 1000\"}];generation=1;")));
  }

  @Test
  void effectsNeedAWindow() {
    ProjectFolder p =
        ProjectFolder.seed(dir)
            .models(
                "models:\n"
                    + "  customer_metrics:\n"
                    + "    key: [customer_id]\n"
                    + "    effects: [{type: reward, subject: customer_id, when: \"total_spend >="
                    + " 1000\", provider: "
                    + PROVIDER
                    + "}]\n");
    assertThat(
        p.problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'effects': effects apply to windowed"
                + " models only: an effect is keyed by its window — add window: <duration> or"
                + " remove effects"));
  }

  @Test
  void typeSubjectWhenAndProviderAreRequired() {
    String fix = " — write " + ModelsFile.EFFECT_EXAMPLE;
    assertThat(
        withEffect(SUBJECT + WHEN + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'effects[1].type': required key is"
                + " missing"
                + fix));
    assertThat(
        withEffect(TYPE + WHEN + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'effects[1].subject': required key is"
                + " missing"
                + fix));
    assertThat(
        withEffect(TYPE + SUBJECT + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'effects[1].when': required key is"
                + " missing"
                + fix));
    assertThat(
        withEffect(TYPE + SUBJECT + WHEN).problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'effects[1].provider': required key is"
                + " missing"
                + fix));
  }

  @Test
  void theSubjectIsAKeyOrWindowColumn() {
    assertThat(
        withEffect(TYPE + "subject: customer\n" + WHEN + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:7: model 'customer_metrics', key 'effects[1].subject': 'customer' is"
                + " not a key or window column of the model (they are customer_id, window_start,"
                + " window_end) — did you mean 'customer_id'? name a key or window column, e.g."
                + " subject: customer_id"));
  }

  /**
   * Issue 28: an aggregate subject moves the effect key with its value (a second effect, never
   * cancelled).
   */
  @Test
  void anAggregateIsNoSubject() {
    assertThat(
        withEffect(TYPE + "subject: total_spend\n" + WHEN + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:7: model 'customer_metrics', key 'effects[1].subject': 'total_spend' is"
                + " an aggregate, not a key or window column: the effect key would change with its"
                + " value, so a correction would prepare a second effect for the window and never"
                + " cancel the first — name a key or window column (customer_id, window_start,"
                + " window_end), e.g. subject: customer_id; test the aggregate in when:"));
  }

  @Test
  void theWindowStartIsASubject() throws Exception {
    ModelDeclaration m =
        withEffect(TYPE + "subject: window_start\n" + WHEN + WITH_PROVIDER)
            .load()
            .models()
            .get("customer_metrics");
    assertThat(m.effects().get(0).subject(), is("window_start"));
  }

  @Test
  void theConditionParses() {
    List<String> problems =
        withEffect(TYPE + SUBJECT + "when: \"total_spend >=\"\n" + WITH_PROVIDER).problems();
    assertThat(problems.size(), is(1));
    assertThat(
        problems
            .get(0)
            .startsWith(
                "streamform.yml:8: model 'customer_metrics', key 'effects[1].when': is not a"
                    + " condition: "),
        is(true));
    assertThat(
        problems
            .get(0)
            .endsWith(
                " — write a condition over the model's output columns in its SQL"
                    + " expression language, e.g. when: \"revenue >= 1000\""),
        is(true));
  }

  @Test
  void aConditionWithUnknownLoads() throws Exception {
    ModelDeclaration m =
        withEffect(TYPE + SUBJECT + "when: \"total_spend >= 1000 OR UNKNOWN\"\n" + WITH_PROVIDER)
            .load()
            .models()
            .get("customer_metrics");
    assertThat(m.effects().get(0).when(), is("total_spend >= 1000 OR UNKNOWN"));
  }

  /** yaml.md: when: is the model's WHERE language, so it is type-checked as a WHERE is. */
  @Test
  void theConditionIsTypeCheckedAgainstTheOutputColumns() {
    String fix = " — a condition reads the model's output row: total_spend is decimal(38,2)";
    assertThat(
        withEffect(TYPE + SUBJECT + "when: \"total_spend >= 'a lot'\"\n" + WITH_PROVIDER)
            .problems(),
        contains(
            "streamform.yml:8: model 'customer_metrics', key 'effects[1].when': `total_spend >="
                + " 'a lot'` compares `total_spend` (decimal(38,2)) with 'a lot' (a string),"
                + " which cannot be compared; compare numbers with numbers (no quotes) and"
                + " strings with quoted strings"
                + fix));
    assertThat(
        withEffect(TYPE + SUBJECT + "when: \"total_spend + 1\"\n" + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:8: model 'customer_metrics', key 'effects[1].when': `total_spend + 1`"
                + " is not a condition (a number); write a comparison, e.g. when: \"total_spend +"
                + " 1 > 0\""
                + fix));
    assertThat(
        withEffect(TYPE + SUBJECT + "when: \"total_spend = NULL\"\n" + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:8: model 'customer_metrics', key 'effects[1].when': `total_spend ="
                + " NULL` is never true: a comparison with NULL is UNKNOWN; write `total_spend IS"
                + " NULL` instead"
                + fix));
  }

  @Test
  void theConditionNamesOnlyOutputColumns() {
    assertThat(
        withEffect(TYPE + SUBJECT + "when: \"amount >= 1000\"\n" + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:8: model 'customer_metrics', key 'effects[1].when': names 'amount',"
                + " which is not an output column of the query (it produces customer_id,"
                + " total_spend) — a condition reads the window's output row only"));
  }

  @Test
  void theTypeIsAName() {
    assertThat(
        withEffect("type: \"a reward\"\n" + SUBJECT + WHEN + WITH_PROVIDER).problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'effects[1].type': 'a reward' is not a"
                + " usable effect type — use ASCII letters (a-z, A-Z), digits and _ (starting with"
                + " a letter or _), e.g. type: reward"));
  }

  /** docs/reference/yaml.md: a word that differs only in case names its lower-case spelling. */
  @Test
  void aProviderKindInAnotherCaseNamesItsLowerCaseSpelling() {
    assertThat(
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: "
                    + PROVIDER.replace("webhook", "Webhook")
                    + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.kind':"
                + " 'Webhook' is not a provider kind (words are written in lower case: write"
                + " webhook) — write kind: webhook (the only kind so far)"));
  }

  @Test
  void theProviderIsAWebhookAtAnHttpUrl() {
    assertThat(
        withEffect(
                TYPE + SUBJECT + WHEN + "provider: " + PROVIDER.replace("webhook", "email") + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.kind':"
                + " 'email' is not a provider kind — write kind: webhook (the only kind so far)"));
    assertThat(
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: "
                    + PROVIDER.replace("http://127.0.0.1:8099/rewards", "ftp://h/x")
                    + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.url': 'ftp://h/x'"
                + " is not an http(s) URL — write the webhook's endpoint, e.g. url:"
                + " \"http://127.0.0.1:8099/rewards\""));
  }

  @Test
  void theWebhooksPortIsOneAConnectionCanBeMadeTo() throws Exception {
    for (String port : List.of("99999", "0")) {
      assertThat(
          withEffect(TYPE + SUBJECT + WHEN + "provider: " + PROVIDER.replace("8099", port) + "\n")
              .problems(),
          contains(
              "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.url':"
                  + " 'http://127.0.0.1:"
                  + port
                  + "/rewards' has port "
                  + port
                  + ", outside 1 to 65535: nothing could be sent there — write the port the"
                  + " webhook listens on, e.g. url: \"http://127.0.0.1:8099/rewards\""));
    }
    // the highest port is one
    assertThat(
        withEffect(TYPE + SUBJECT + WHEN + "provider: " + PROVIDER.replace("8099", "65535") + "\n")
            .load()
            .models()
            .get("customer_metrics")
            .effects()
            .get(0)
            .providerUrl(),
        is("http://127.0.0.1:65535/rewards"));
  }

  @Test
  void idempotencyAndReceiptsAreStated() {
    assertThat(
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: "
                    + PROVIDER.replace("idempotency: key", "idempotency: yes")
                    + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.idempotency':"
                + " 'yes' is neither key nor none — write idempotency: key when the provider"
                + " dedupes by the Idempotency-Key header, else idempotency: none"));
    assertThat(
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: "
                    + PROVIDER.replace("receipts: true", "receipts: maybe")
                    + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.receipts':"
                + " 'maybe' is neither true nor false — write receipts: true when the provider"
                + " answers GET <url>/<effect key> with a receipt, else receipts: false"));
    List<String> missing =
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: {kind: webhook, url: \"http://127.0.0.1:8099/rewards\"}\n")
            .problems();
    assertThat(missing.size(), is(2));
    assertThat(
        missing
            .get(0)
            .startsWith(
                "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.idempotency':"
                    + " required key is missing — write provider:"),
        is(true));
  }

  @Test
  void unknownKeysAreRefused() {
    assertThat(
        withEffect(TYPE + SUBJECT + WHEN + WITH_PROVIDER + "retries: 3\n").problems(),
        contains(
            "streamform.yml:10: model 'customer_metrics', key 'effects[1].retries': unknown key —"
                + " known keys: type, subject, when, provider, mode"));
    assertThat(
        withEffect(
                TYPE
                    + SUBJECT
                    + WHEN
                    + "provider: "
                    + PROVIDER.replace("}", ", retry: true}")
                    + "\n")
            .problems(),
        contains(
            "streamform.yml:9: model 'customer_metrics', key 'effects[1].provider.retry':"
                + " unknown key — known keys: kind, url, idempotency, receipts, authorization_env,"
                + " authorization_file"));
  }

  @Test
  void eachEffectHasItsOwnType() {
    String effect =
        "      - {type: reward, subject: customer_id, when: \"total_spend >= 1000\", provider: "
            + PROVIDER
            + "}\n";
    assertThat(
        withModel("    effects:\n" + effect + effect).problems(),
        contains(
            "streamform.yml:7: model 'customer_metrics', key 'effects[2].type': 'reward' is"
                + " declared twice (first on line 6): the type is part of the effect's key and"
                + " names its provider — give each effect its own type, e.g. type: reward_2"));
  }

  @Test
  void effectsIsAListOfMaps() {
    assertThat(
        withModel("    effects: reward\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'effects': expected a list, got"
                + " 'reward' — write "
                + ModelsFile.EFFECT_EXAMPLE));
  }
}
