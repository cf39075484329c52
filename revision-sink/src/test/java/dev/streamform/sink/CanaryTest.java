package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasValue;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectIdentity;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import dev.streamform.transforms.windows.WindowRevision;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.schemas.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Canary by key (docs/semantics.md §9.9, §10.11, issue 33): {@code alias set --generation 2 --share
 * 5%} sends the keys whose documented hash lands in the share to generation 2; the canonical view
 * resolves per key, and effects follow the generation each key reads. 200 merchants, two hourly
 * windows each; the reward rule is {@code revenue >= 1000}; the provider does not dedupe.
 */
class CanaryTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final int MERCHANTS = 200;
  private static final Schema OUTPUT =
      Schema.builder()
          .addFields(Revisions.KEY.getFields())
          .addFields(Revisions.VALUES.getFields())
          .build();

  private HikariDataSource pool;
  private LocalProviderServer provider;
  private EffectRule rule;
  private LedgerWriter writer;
  private Ledger ledger;

  @BeforeEach
  void fresh() throws Exception {
    pool = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres").openPool("test", 6, 2_000);
    provider = LocalProviderServer.start(0);
    provider.dedupe(false);
    rule =
        EffectRule.of(
            Revisions.MODEL,
            "reward",
            "merchant_id",
            "revenue >= 1000",
            ProviderSpec.webhook(provider.url(), true, true));
    writer = new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule));
    ledger = Ledger.at(pool);
  }

  @AfterEach
  void close() {
    provider.close();
    pool.close();
  }

  /** Both hourly windows of every merchant, of {@code generation}, with {@code revenue}. */
  private void write(int generation, String revenue) throws Exception {
    List<WindowRevision> all = new ArrayList<>();
    for (long m = 1; m <= MERCHANTS; m++) {
      all.add(revision(m, 10, 1, revenue, generation));
      all.add(revision(m, 11, 1, revenue, generation));
    }
    writer.write(all);
  }

  /**
   * The documented hash, computed here independently of the database: the first 32 bits of SHA-256
   * of the key as PostgreSQL prints it as jsonb, unsigned, modulo 10 000.
   */
  private static int bucket(long merchant) throws Exception {
    byte[] sha =
        MessageDigest.getInstance("SHA-256")
            .digest(("{\"merchant_id\": " + merchant + "}").getBytes(StandardCharsets.UTF_8));
    return (int) ((ByteBuffer.wrap(sha, 0, 4).getInt() & 0xffffffffL) % 10_000);
  }

  private static Set<Long> inShare(int basisPoints) throws Exception {
    Set<Long> out = new TreeSet<>();
    for (long m = 1; m <= MERCHANTS; m++) {
      if (bucket(m) < basisPoints) {
        out.add(m);
      }
    }
    return out;
  }

  /** Per merchant, the generations the canonical view shows for its windows. */
  private Map<Long, Set<Integer>> canonicalView() throws Exception {
    Map<Long, Set<Integer>> out = new TreeMap<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (window_key->>'merchant_id')::bigint, generation FROM"
                    + " streamform.canonical_projection")) {
      while (rs.next()) {
        out.computeIfAbsent(rs.getLong(1), k -> new TreeSet<>()).add(rs.getInt(2));
      }
      c.commit();
    }
    return out;
  }

  private Dispatcher.Report dispatch() throws Exception {
    EffectProvider p = new WebhookProvider(rule.provider(), Duration.ofSeconds(2));
    return new Dispatcher(
            pool,
            "d",
            Revisions.MODEL,
            Map.of("reward", p),
            Duration.ofSeconds(30),
            new Dispatcher.Hooks() {})
        .withBackoff(Duration.ZERO, Duration.ZERO)
        .runOnce(10_000);
  }

  private static String keyOf(long merchant, int hour) {
    return EffectIdentity.effectKey(
        "reward", revision(merchant, hour, 1, "0").logicalWindowId(), merchant);
  }

  private Ledger.AliasChange canary(int generation, int basisPoints) throws Exception {
    return ledger.setCanonicalGeneration(
        AliasRequest.of(Revisions.MODEL, generation)
            .withShare(basisPoints)
            .withEffects(List.of(rule), OUTPUT));
  }

  @Test
  void theKeysWhoseHashLandsInTheShareReadTheCanaryEveryWindowOfThemEveryTime() throws Exception {
    write(1, "100");
    write(2, "200");
    Set<Long> expected = inShare(500);
    Ledger.AliasChange change = canary(2, 500);
    System.out.printf(
        "canary 5%%: %d of %d keys read generation 2%n", change.canaryKeys(), change.keys());
    assertThat(change.keys(), equalTo(MERCHANTS));
    assertThat(change.canaryKeys(), equalTo(expected.size()));
    assertThat(change.canaryKeys(), greaterThan(0));
    assertThat(change.canaryKeys(), lessThan(MERCHANTS / 5));
    assertThat(ledger.canonicalGeneration(Revisions.MODEL).getAsInt(), equalTo(1));

    Map<Long, Set<Integer>> view = canonicalView();
    assertThat(view.size(), equalTo(MERCHANTS));
    for (long m = 1; m <= MERCHANTS; m++) {
      assertThat("merchant " + m, view.get(m), equalTo(Set.of(expected.contains(m) ? 2 : 1)));
    }
    // the same answer on another read, and after the share is set again
    canary(2, 500);
    assertThat(canonicalView(), equalTo(view));
    // a wider share keeps every key of the narrower one
    canary(2, 2_000);
    Map<Long, Set<Integer>> wider = canonicalView();
    for (long m : expected) {
      assertThat(wider.get(m), equalTo(Set.of(2)));
    }

    // the ledger's history marks as canonical what the view shows, per key
    for (WindowHistory w : ledger.history(Revisions.MODEL, Ledger.Filter.all())) {
      long m = ((Number) w.key().get("merchant_id")).longValue();
      int reads = inShare(2_000).contains(m) ? 2 : 1;
      assertThat(Ledger.label(w), w.canonical(), equalTo(w.generation() == reads));
    }

    GenerationComparison compared = ledger.compare(Revisions.MODEL, 1, 2);
    assertThat(compared.canaryKeys().windows().size(), equalTo(2 * inShare(2_000).size()));
    assertThat(
        compared.otherKeys().windows().size(), equalTo(2 * (MERCHANTS - inShare(2_000).size())));
  }

  /**
   * Two merchants whose buckets are adjacent, {at the share, one below it}: the 200 merchants of
   * the other tests have no bucket equal to the shares they set, so the edge tests look for such a
   * pair (buckets computed independently of the database). The share is the first one's bucket.
   */
  private static long[] atAndBelowAShare() throws Exception {
    Map<Integer, Long> byBucket = new TreeMap<>();
    long atShare = 0;
    long belowShare = 0;
    for (long m = 1; atShare == 0; m++) {
      int b = bucket(m);
      byBucket.putIfAbsent(b, m);
      if (b >= 2 && byBucket.containsKey(b - 1)) {
        atShare = m;
        belowShare = byBucket.get(b - 1);
      } else if (byBucket.containsKey(b + 1) && b + 1 >= 2) {
        atShare = byBucket.get(b + 1);
        belowShare = m;
      }
    }
    assertThat(bucket(belowShare), equalTo(bucket(atShare) - 1));
    return new long[] {atShare, belowShare};
  }

  /**
   * The share's edge is exclusive: a key whose bucket equals the share reads the generation that
   * was canonical before the canary, and a key whose bucket is one below it reads the canary.
   */
  @Test
  void aKeyWhoseBucketEqualsTheShareReadsTheOldGenerationAndOneBelowItTheCanary() throws Exception {
    long[] pair = atAndBelowAShare();
    long atShare = pair[0];
    long belowShare = pair[1];
    int share = bucket(atShare);
    for (int generation = 1; generation <= 2; generation++) {
      writer.write(
          List.of(
              revision(atShare, 10, 1, "100", generation),
              revision(belowShare, 10, 1, "100", generation)));
    }

    Ledger.AliasChange change = canary(2, share);
    System.out.printf(
        "share %d basis points: merchant %d (bucket %d) and %d (bucket %d)%n",
        share, atShare, share, belowShare, share - 1);
    assertThat(change.keys(), equalTo(2));
    assertThat(change.canaryKeys(), equalTo(1));
    Map<Long, Set<Integer>> view = canonicalView();
    assertThat("merchant " + atShare, view.get(atShare), equalTo(Set.of(1)));
    assertThat("merchant " + belowShare, view.get(belowShare), equalTo(Set.of(2)));
  }

  /**
   * The same edge for effects, which the outbox decides in Java from the key's bucket: under a
   * share equal to a key's bucket, that key's new revisions act for the generation that was
   * canonical before the canary and not for the canary; the key one bucket below acts for the
   * canary only.
   */
  @Test
  void atTheSharesEdgeEffectsFollowTheOldGenerationAndOneBucketBelowTheCanary() throws Exception {
    long[] pair = atAndBelowAShare();
    long atShare = pair[0];
    long belowShare = pair[1];
    int share = bucket(atShare);
    // no window acts yet (revenue below the rule's 1000): what follows is the outbox's choice alone
    for (int generation = 1; generation <= 2; generation++) {
      writer.write(
          List.of(
              revision(atShare, 10, 1, "100", generation),
              revision(belowShare, 10, 1, "100", generation)));
    }
    Ledger.AliasChange change = canary(2, share);
    assertThat(change.canaryKeys(), equalTo(1));
    assertThat(change.effects().prepared(), equalTo(0));

    String at = "merchant " + atShare + " (bucket " + share + ", share " + share + ")";
    String below = "merchant " + belowShare + " (bucket " + (share - 1) + ", share " + share + ")";
    assertThat(
        at + ", generation 2",
        writer.write(List.of(revision(atShare, 12, 1, "5000", 2))).effects().prepared(),
        equalTo(0));
    assertThat(
        below + ", generation 1",
        writer.write(List.of(revision(belowShare, 12, 1, "5000", 1))).effects().prepared(),
        equalTo(0));
    assertThat(
        at + ", generation 1",
        writer.write(List.of(revision(atShare, 12, 1, "5000", 1))).effects().prepared(),
        equalTo(1));
    assertThat(
        below + ", generation 2",
        writer.write(List.of(revision(belowShare, 12, 1, "5000", 2))).effects().prepared(),
        equalTo(1));
    assertThat(dispatch().done(), equalTo(2));
    assertThat(provider.requests(keyOf(atShare, 12)), equalTo(1));
    assertThat(provider.requests(keyOf(belowShare, 12)), equalTo(1));
  }

  /**
   * The same edge in a comparison of the two generations ({@code streamform compare-generations}),
   * which reports the canary's keys apart: the key whose bucket equals the share is among the other
   * keys, the key one bucket below among the canary's.
   */
  @Test
  void atTheSharesEdgeAComparisonCountsTheKeyAmongTheOtherKeysAndOneBucketBelowTheCanarys()
      throws Exception {
    long[] pair = atAndBelowAShare();
    long atShare = pair[0];
    long belowShare = pair[1];
    int share = bucket(atShare);
    for (int generation = 1; generation <= 2; generation++) {
      writer.write(
          List.of(
              revision(atShare, 10, 1, "100", generation),
              revision(belowShare, 10, 1, "100", generation),
              revision(atShare, 11, 1, "100", generation),
              revision(belowShare, 11, 1, "100", generation)));
    }
    canary(2, share);

    GenerationComparison compared = ledger.compare(Revisions.MODEL, 1, 2);
    assertThat(compared.windows().size(), equalTo(4));
    assertThat(
        "the canary's keys at share " + share,
        merchants(compared.canaryKeys()),
        equalTo(List.of(belowShare, belowShare)));
    assertThat(
        "the other keys at share " + share,
        merchants(compared.otherKeys()),
        equalTo(List.of(atShare, atShare)));
  }

  private static List<Long> merchants(GenerationComparison compared) {
    return compared.windows().stream()
        .map(w -> ((Number) w.key().get("merchant_id")).longValue())
        .toList();
  }

  @Test
  void effectsFollowTheGenerationEachKeyReadsThroughCanaryPromotionAndRollback() throws Exception {
    write(1, "500");
    write(2, "1500");
    // generation 2 is not canonical for any key yet: nothing prepared
    assertThat(new EffectsLedger(pool).effects(Revisions.MODEL), empty());
    Set<Long> share = inShare(500);

    Ledger.AliasChange canary = canary(2, 500);
    assertThat(canary.effects().prepared(), equalTo(2 * share.size()));
    assertThat(dispatch().done(), equalTo(2 * share.size()));
    for (long m = 1; m <= MERCHANTS; m++) {
      int expected = share.contains(m) ? 1 : 0;
      assertThat("merchant " + m, provider.requests(keyOf(m, 10)), equalTo(expected));
      assertThat("merchant " + m, provider.requests(keyOf(m, 11)), equalTo(expected));
    }

    // a new revision of a key outside the share, from either generation, acts only for generation
    // 1; one inside the share only for generation 2
    long outside = 1;
    while (share.contains(outside)) {
      outside++;
    }
    long inside = share.iterator().next();
    assertThat(
        writer.write(List.of(revision(outside, 12, 1, "5000", 2))).effects().prepared(),
        equalTo(0));
    assertThat(
        writer.write(List.of(revision(inside, 12, 1, "5000", 1))).effects().prepared(), equalTo(0));
    assertThat(
        writer.write(List.of(revision(outside, 12, 1, "5000", 1))).effects().prepared(),
        equalTo(1));
    assertThat(
        writer.write(List.of(revision(inside, 12, 1, "5000", 2))).effects().prepared(), equalTo(1));

    // full promotion: the other keys' rewards now; then a rollback compensates, never resends
    Ledger.AliasChange promoted =
        ledger.setCanonicalGeneration(
            AliasRequest.of(Revisions.MODEL, 2).withEffects(List.of(rule), OUTPUT));
    assertThat(promoted.canary().isPresent(), equalTo(false));
    assertThat(promoted.effects().prepared(), equalTo(2 * (MERCHANTS - share.size())));
    dispatch();
    Ledger.AliasChange rolledBack =
        ledger.setCanonicalGeneration(
            AliasRequest.of(Revisions.MODEL, 1).withEffects(List.of(rule), OUTPUT));
    assertThat(rolledBack.effects().compensations(), equalTo(2 * MERCHANTS));
    assertThat(dispatch().claimed(), equalTo(0));
    assertThat(provider.requests(), equalTo(2 * MERCHANTS + 2));
    assertThat(provider.requestsPerKey(), not(hasValue(greaterThan(1))));
    assertThat(new EffectsLedger(pool).verify(Revisions.MODEL).problems(), empty());
  }

  @Test
  void aShareNeedsAnotherCanonicalGenerationForTheOtherKeys() throws Exception {
    write(2, "100");
    Ledger fresh = Ledger.at(pool);
    // the first write made generation 2 canonical: a canary of generation 2 itself is refused
    Ledger.CanaryRefused same =
        assertThrows(
            Ledger.CanaryRefused.class,
            () -> fresh.setCanonicalGeneration(AliasRequest.of(Revisions.MODEL, 2).withShare(500)));
    assertThat(
        same.getMessage().contains("a canary shares keys with another generation"), equalTo(true));
    assertThrows(
        IllegalArgumentException.class,
        () -> AliasRequest.of(Revisions.MODEL, 2).withShare(10_000));
    assertThat(CanaryShare.basisPoints("5%"), equalTo(500));
    assertThat(CanaryShare.basisPoints("0.5%"), equalTo(50));
    assertThrows(IllegalArgumentException.class, () -> CanaryShare.basisPoints("5"));
    assertThrows(IllegalArgumentException.class, () -> CanaryShare.basisPoints("0.001%"));
    assertThrows(IllegalArgumentException.class, () -> CanaryShare.basisPoints("100%"));
    assertThat(CanaryShare.basisPoints("12.25%"), equalTo(1225));
    assertThat(CanaryShare.basisPoints("0.50%"), equalTo(50));
    // only the documented spelling: ASCII digits, an optional decimal point with digits on both
    // sides, then % (found by a read-only audit: 1e1% was 10%, and an Arabic-Indic digit 5%)
    for (String odd :
        List.of("1e1%", "\u0665%", "+5%", " 5%", "5 %", ".5%", "5.%", "5%%", "0x10%", "5_0%")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CanaryShare.basisPoints(odd), odd);
      assertThat(
          e.getMessage(),
          equalTo(
              "a share is a percentage such as 5% or 0.5% (digits, an optional point with"
                  + " digits after it, then %), got '"
                  + odd
                  + "'"));
    }
  }
}
