package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasValue;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Incremental effects (docs/semantics.md §10, issue 33 item 6): for a provider that takes
 * adjustments, a correction after the effect was dispatched becomes a delta effect — the delta, its
 * predecessor, its own key {@code H(effect_key, revision)} — delivered under the same rules, and
 * the delivered values sum to the window's current value; never a second effect under the base key.
 */
class IncrementalEffectsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();
  private static final ObjectMapper JSON = new ObjectMapper();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectRule rule;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 4, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false); // a second delivery of a key shows as a second effect
    rule =
        EffectRule.of(
                Revisions.MODEL,
                "reward",
                "merchant_id",
                "revenue >= 1000",
                ProviderSpec.webhook(provider.url(), true, true))
            .incrementally();
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  private void write(String revenue, int n) throws Exception {
    new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule))
        .write(List.of(revision(7, 10, n, revenue)));
  }

  private void dispatch() throws Exception {
    new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", new WebhookProvider(rule.provider(), Duration.ofMillis(800))),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .runOnce(100);
  }

  /** The effects the provider was sent (DONE), each as its payload, base first. */
  private List<JsonNode> delivered() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT payload::text FROM streamform.effect WHERE state = 'DONE' ORDER BY"
                    + " delta_of NULLS FIRST, made_true_by")) {
      while (rs.next()) {
        out.add(JSON.readTree(rs.getString(1)));
      }
    }
    return out;
  }

  @Test
  void correctionsAfterDispatchAreDeltasThatSumToTheCurrentValue() throws Exception {
    write("1200", 1);
    dispatch(); // the reward, with revenue 1200
    write("1300", 2); // a correction after DONE: +100
    dispatch();
    write("1250", 3); // -50, overtaken before it is sent ...
    write("1400", 4); // ... by +100 from 1300
    dispatch();
    write("1400", 4); // a replay of revision 4: nothing new
    dispatch();

    List<JsonNode> sent = delivered();
    assertThat("the base effect and two deltas", sent.size(), equalTo(3));
    String base = sent.get(0).get("effect_key").asText();
    BigDecimal total = new BigDecimal(sent.get(0).get("values").get("revenue").asText());
    String predecessor = base;
    for (JsonNode delta : sent.subList(1, sent.size())) {
      assertThat(delta.get("delta_of").asText(), equalTo(base));
      assertThat(delta.get("predecessor").asText(), equalTo(predecessor));
      assertThat(
          delta.get("effect_key").asText(),
          equalTo(EffectIdentity.deltaKey(base, delta.get("revision").asInt())));
      total = total.add(new BigDecimal(delta.get("delta").get("revenue").asText()));
      predecessor = delta.get("effect_key").asText();
    }
    assertThat(
        "delivered values sum to the current revenue",
        total.compareTo(new BigDecimal("1400")),
        equalTo(0));
    assertThat("one request per key", provider.requestsPerKey(), not(hasValue(greaterThan(1))));
    assertThat(provider.requests(), equalTo(3));
    assertThat(new EffectsLedger(pool).verify(Revisions.MODEL).problems(), empty());
  }

  /**
   * The alias moving back and forth between two generations whose windows have the same revision
   * numbers: each move makes the delta the values need (found by a read-only audit of effects:
   * promote, roll back, promote again delivered 200 for a window whose canonical value was 180,
   * since the second generation's delta of revision 2 was taken for a replay of the first's).
   */
  @Test
  void deltasFollowTheAliasBackAndForthAndStillSumToTheCanonicalValue() throws Exception {
    LedgerWriter writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
    Ledger ledger = Ledger.at(pool);
    Schema output =
        Schema.builder()
            .addFields(Revisions.KEY.getFields())
            .addFields(Revisions.VALUES.getFields())
            .build();
    writer.write(List.of(revision(7, 10, 1, "1200", 1)));
    dispatch(); // the reward, 1200
    writer.write(List.of(revision(7, 10, 2, "1300", 1))); // generation 1's correction: +100
    dispatch();
    LedgerWriter shadow = LedgerWriter.shadow(pool, Duration.ofSeconds(30), List.of(rule));
    shadow.write(List.of(revision(7, 10, 1, "1500", 2), revision(7, 10, 2, "1800", 2)));
    List<String> sums = new ArrayList<>();
    for (int g : new int[] {2, 1, 2, 1, 2}) {
      ledger.setCanonicalGeneration(
          AliasRequest.of(Revisions.MODEL, g).withEffects(List.of(rule), output));
      dispatch();
      BigDecimal total = BigDecimal.ZERO;
      for (JsonNode e : delivered()) {
        total =
            total.add(
                new BigDecimal(
                    (e.has("delta") ? e.get("delta") : e.get("values")).get("revenue").asText()));
      }
      sums.add("generation " + g + ": " + total.stripTrailingZeros().toPlainString());
    }
    assertThat(
        "what was delivered sums to the canonical value after each move",
        sums,
        equalTo(
            List.of(
                "generation 2: 1800",
                "generation 1: 1300",
                "generation 2: 1800",
                "generation 1: 1300",
                "generation 2: 1800")));
    assertThat("one request per key", provider.requestsPerKey(), not(hasValue(greaterThan(1))));
    assertThat(new EffectsLedger(pool).verify(Revisions.MODEL).problems(), empty());
    // the alias set again on the generation it shows: nothing more
    int before = provider.requests();
    ledger.setCanonicalGeneration(
        AliasRequest.of(Revisions.MODEL, 2).withEffects(List.of(rule), output));
    dispatch();
    assertThat(provider.requests(), equalTo(before));
  }

  @Test
  void withoutIncrementalModeACorrectionAfterDispatchIsACompensation() throws Exception {
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    write("1200", 1);
    dispatch();
    write("1300", 2);
    dispatch();
    assertThat(delivered().size(), equalTo(1));
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM streamform.effect_compensation")) {
      rs.next();
      assertThat(rs.getInt(1), equalTo(1));
    }
  }
}
