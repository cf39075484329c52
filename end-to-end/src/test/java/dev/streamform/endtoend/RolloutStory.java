package dev.streamform.endtoend;

import static dev.streamform.endtoend.KafkaFlinkEndToEndTest.query;
import static dev.streamform.endtoend.LocalServices.BOOTSTRAP;
import static dev.streamform.endtoend.LocalServices.awaitRunning;
import static dev.streamform.endtoend.LocalServices.cli;
import static dev.streamform.endtoend.LocalServices.cliAnyStatus;
import static dev.streamform.endtoend.LocalServices.produce;
import static dev.streamform.endtoend.LocalServices.submit;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Issue 33 end to end: a rollout that goes wrong and is stopped, on the broker, the Flink cluster,
 * PostgreSQL and the local provider (deduplication off, so a second request is a second reward).
 *
 * <p>Merchants 1–60 are paid 120 in the 10:00 hour; once that hour's revision 1 is published every
 * fourth one (merchant 3, 7, ...) is refunded 30 within the allowed lateness, and the reward rule
 * is {@code revenue >= 100}. Generation 1 ({@code allowed_lateness: 30m}) runs live: the refunds
 * correct the hour to 90, so the refunded merchants' rewards are cancelled before any is sent, and
 * the dispatcher rewards the others. Generation 2 is the anomaly: a policy change that is wrong on
 * purpose ({@code allowed_lateness: 1m}), so the refunds are too late for it and it computes 120
 * for the refunded merchants. It runs as a shadow beside generation 1; a 5% canary by key sends the
 * keys whose bucket is below 500 to it, which prepares rewards for the refunded merchants among
 * them; the operator pauses the effects (a dispatcher pass then claims nothing) and rolls back to
 * generation 1 (the wrong rewards are cancelled) and resumes.
 *
 * <p>What must hold: every value against the two policies' oracles ({@link WindowedOracle}); no
 * effect key requested twice, and none for a reward only generation 2 implies; every ledger row
 * before the canary is there after the rollback, and the ledger holds exactly what both oracles
 * publish; {@code gates} exits 1 on generation 2 (offsets it lost, too-late events without a
 * disposition) and 0 on generation 1, with the provider's counts.
 *
 * <p>Then the fix (issue 33 item 4 on Kafka): generation 3 ({@code allowed_lateness: 3h}) runs as a
 * shadow and takes in the payments of -50 that generations 1 and 2 refused as too late, replayed
 * from their place in the topic; {@code compare-generations --bootstrap-servers} reads the live
 * run's late topic and finds every one of them in generation 3's revisions (none in generation
 * 2's), and generation 3's values are its oracle's.
 */
final class RolloutStory {
  static final String MODEL = "rollout_revenue";
  private static final String TOPIC = "rollout_payments";
  private static final int MERCHANTS = 60;
  private static final BigDecimal TARGET = new BigDecimal(100);
  private static final int CANARY_BASIS_POINTS = 500; // --share 5%

  private RolloutStory() {}

  static void run(Path dir) throws Exception {
    Path one = dir.resolve("generation-1");
    Path two = dir.resolve("generation-2");
    try (LocalProviderServer provider = LocalProviderServer.start(0);
        LocalPostgres postgres = LocalPostgres.temporary()) {
      postgres.start();
      provider.dedupe(false); // a second request is a second reward, never absorbed
      project(one, provider, "    allowed_lateness: 30m\n");
      project(
          two, provider, "    allowed_lateness: 1m        # wrong on purpose\n    generation: 2\n");
      fixtures(one.resolve("fixtures"));
      String[] db = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      Map<Long, BigDecimal> want1 = finalRevenue(one);
      Map<Long, BigDecimal> want2 = finalRevenue(two);
      int windows =
          published(one).stream().map(r -> r.split(" ")[0]).collect(Collectors.toSet()).size();
      Set<Long> rewarded1 = rewarded(want1);
      Set<Long> rewarded2 = rewarded(want2);
      Set<Long> canary = new TreeSet<>();
      Set<Long> keys = new TreeSet<>(want1.keySet());
      keys.addAll(List.of(1000L, 1001L, 1002L)); // the 11:10 payers
      for (long m : keys) {
        if (bucket(m) < CANARY_BASIS_POINTS) {
          canary.add(m);
        }
      }
      Set<Long> wrongRewards = new TreeSet<>(canary); // canary keys only generation 2 rewards
      wrongRewards.retainAll(rewarded2);
      wrongRewards.removeAll(rewarded1);
      assertThat("the canary holds a key the anomaly rewards wrongly", wrongRewards, not(empty()));

      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
        admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
      }
      // generation 1, live (parallelism 1: the shadow job takes the cluster's other slot)
      long started = System.nanoTime();
      awaitRunning(submit(one, MODEL, 1, db));
      produce(one, one.resolve("fixtures/part1.yml"));
      awaitCount(postgres, "projection WHERE generation = 1 AND revision >= 1", MERCHANTS);
      produce(one, one.resolve("fixtures/part2.yml")); // the refunds, then the end of the day
      awaitCount(postgres, "projection WHERE generation = 1 AND status = 'final'", windows);
      assertEquals(want1, canonicalRevenue(postgres), "generation 1 against its oracle");
      int tooLate = oracle(one).late().size();
      assertThat("the story has too-late events", tooLate, greaterThan(0));
      lateRowsNameTheirSourceRecords(tooLate);
      awaitCount(postgres, "effect WHERE state = 'CANCELLED'", MERCHANTS - rewarded1.size());
      String sent = cli(dispatch(one, db));
      assertThat(sent, sent, startsWith("pass 1: " + rewarded1.size() + " claimed, "));
      assertEquals(rewarded1.size(), provider.requests(), "generation 1's rewards");

      // generation 2, the anomaly, as a shadow beside it
      submit(two, MODEL, 1, join(db, "--shadow"));
      awaitCount(postgres, "projection WHERE generation = 2 AND status = 'final'", windows);
      Set<String> before = ledger(postgres);
      Set<Long> different = new TreeSet<>(want1.keySet());
      different.removeIf(m -> want1.get(m).equals(want2.get(m)));
      String compared = cliAnyStatus(join(compare(two), db, "--bootstrap-servers", BOOTSTRAP));
      assertThat(
          compared,
          compared,
          allOf(
              startsWith("exit 3: "),
              containsString(
                  "\n"
                      + windows
                      + " windows: "
                      + (windows - different.size())
                      + " equal, "
                      + different.size()
                      + " different, 0 only in generation 1, 0 only in generation 2")));
      // the payments too late for generation 1 are too late for generation 2 as well
      assertThat(
          compared,
          compared,
          containsString(
              "too-late events of the live run (topic "
                  + MODEL
                  + ".late at "
                  + BOOTSTRAP
                  + ", "
                  + tooLate
                  + " rows): 0 in generation 2's revisions, "
                  + tooLate
                  + " still outside them"));

      // the canary: 5% of the keys read generation 2; effects follow the keys' generation
      String canaried =
          cli(
              join(
                  new String[] {"alias", "set", two.toString(), "--model", MODEL},
                  db,
                  "--generation",
                  "2",
                  "--share",
                  "5%"));
      assertThat(
          canaried,
          canaried,
          containsString(
              "read generation 2 — " + canary.size() + " of " + keys.size() + " keys now"));
      assertThat(
          canaried,
          canaried,
          containsString(
              "effects evaluated on the canonical values: " + wrongRewards.size() + " prepared,"));
      String canaryCompare = cliAnyStatus(join(compare(two), db));
      Set<Long> canaryDifferent = new TreeSet<>(canary);
      canaryDifferent.retainAll(different);
      assertThat(
          canaryCompare,
          canaryCompare,
          containsString(
              "\ncanary keys: "
                  + canary.size()
                  + " windows: "
                  + (canary.size() - canaryDifferent.size())
                  + " equal, "
                  + canaryDifferent.size()
                  + " different"));

      // the operator stops the effects, then rolls back
      cli(
          join(
              new String[] {"effects", "pause", two.toString(), "--model", MODEL},
              db,
              "--by",
              "operator",
              "--reason",
              "generation 2 rewards refunded merchants"));
      String paused = cli(dispatch(two, db));
      assertThat(paused, paused, startsWith("pass 1: effects paused ("));
      assertEquals(
          rewarded1.size(), provider.requests(), "nothing sent while paused: " + paused.trim());
      String rolledBack =
          cli(
              join(
                  new String[] {"alias", "set", one.toString(), "--model", MODEL},
                  db,
                  "--generation",
                  "1"));
      assertThat(
          rolledBack,
          rolledBack,
          containsString(
              "effects evaluated on the canonical values: 0 prepared, 0 following the new values, "
                  + wrongRewards.size()
                  + " cancelled, 0 compensations for a person"));
      cli(
          join(
              new String[] {"effects", "resume", one.toString(), "--model", MODEL},
              db,
              "--by",
              "operator"));
      String resumed = cli(dispatch(one, db));
      assertThat(resumed, resumed, startsWith("pass 1: 0 claimed"));

      // no effect twice, none for the wrong generation
      Map<String, Long> subjectOf = new TreeMap<>();
      for (String row :
          query(postgres, "SELECT effect_key || ' ' || subject::text FROM streamform.effect")) {
        subjectOf.put(
            row.substring(0, row.indexOf(' ')),
            Long.parseLong(row.substring(row.indexOf(' ') + 1)));
      }
      Map<Long, Integer> requested = new TreeMap<>();
      provider.requestsPerKey().forEach((k, n) -> requested.put(subjectOf.get(k), n));
      Map<Long, Integer> once = new TreeMap<>();
      rewarded1.forEach(m -> once.put(m, 1));
      assertEquals(once, requested, "one request per reward generation 1 implies, and no other");
      assertEquals(want1, canonicalRevenue(postgres), "rolled back: generation 1 is canonical");

      // every revision kept: the rows before are there after, and both oracles' revisions are all
      Set<String> after = ledger(postgres);
      Set<String> lost = new TreeSet<>(before);
      lost.removeAll(after);
      assertEquals(Set.of(), lost, "ledger rows lost by the canary and the rollback");
      assertEquals(published(one, two), after, "the ledger: every revision both oracles publish");
      String verified =
          cli(join(new String[] {"ledger", "verify", one.toString(), "--model", MODEL}, db));
      assertThat(verified, verified, containsString(" 0 gaps, 0 mismatches, 0 conflicts"));

      // the release gates: the wrong generation fails, the right one passes
      String gates2 = cliAnyStatus(join(gates(two, provider), db, "--generation", "2"));
      String gates1 = cliAnyStatus(join(gates(one, provider), db, "--generation", "1"));
      assertThat(gates2, gates2, startsWith("exit 1: "));
      assertThat(gates2, line(gates2, "offsets"), matchesPattern("FAIL offsets [1-9][0-9]*/0 .*"));
      assertThat(gates2, line(gates2, "disposition"), matchesPattern("FAIL disposition .*"));
      assertThat(gates1, gates1, startsWith("exit 0: "));
      assertThat(
          gates1,
          line(gates1, "disposition"),
          startsWith("PASS disposition 100.0% threshold >= 100.0% " + tooLate + " of " + tooLate));
      System.out.println("gates of generation 1: " + gates1);
      // the effects gate counts this model's own effect keys: every request the provider received
      assertThat(
          gates1,
          line(gates1, "effects"),
          matchesPattern(
              "PASS effects 1 .* "
                  + provider.requests()
                  + " of its [0-9]+ keys delivered, 0 over.*"));
      // a fixed policy: generation 3 (allowed_lateness 3h) as a shadow takes in the payments the
      // live run refused, replayed in their place in the topic (docs/decisions/0048, 0062)
      long fixStarted = System.nanoTime();
      Path three = dir.resolve("generation-3");
      project(three, provider, "    allowed_lateness: 3h\n    generation: 3\n");
      Map<Long, BigDecimal> want3 = finalRevenue(three);
      LocalServices.cancelAll(); // the cluster's two slots: generation 3 takes one
      awaitRunning(submit(three, MODEL, 1, join(db, "--shadow")));
      String[] compare3 = {
        "compare-generations", three.toString(), "--model", MODEL, "--from", "1", "--to", "3"
      };
      String recomputed = "";
      Map<Long, BigDecimal> got3 = Map.of();
      long deadline = System.nanoTime() + LocalServices.AWAIT.toNanos();
      String taken = tooLate + " in generation 3's revisions, 0 still outside them";
      while (System.nanoTime() < deadline && !(recomputed.contains(taken) && want3.equals(got3))) {
        Thread.sleep(1_000);
        LocalServices.checkNoJobFailed();
        recomputed = cliAnyStatus(join(compare3, db, "--bootstrap-servers", BOOTSTRAP));
        got3 = revenue(postgres, 3);
      }
      assertThat(
          recomputed,
          recomputed,
          containsString(
              "too-late events of the live run (topic "
                  + MODEL
                  + ".late at "
                  + BOOTSTRAP
                  + ", "
                  + tooLate
                  + " rows): "
                  + taken));
      assertEquals(want3, got3, "generation 3 against its oracle");
      assertThat("the fix changes the refused merchants' hour", want3.get(1L), not(want1.get(1L)));
      double fixSeconds = (System.nanoTime() - fixStarted) / 1e9;
      // a partition added to the topic under generation 1 (no partitions: declared): refused at
      // run, before anything is submitted (docs/semantics.md §9, docs/decisions/0054)
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
        admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(4))).all().get();
      }
      String grown =
          cliAnyStatus(
              join(
                  new String[] {
                    "run",
                    one.toString(),
                    "--model",
                    MODEL,
                    "--runner",
                    "flink",
                    "--flink-master",
                    LocalServices.FLINK_MASTER,
                    "--bootstrap-servers",
                    BOOTSTRAP,
                    "--detach"
                  },
                  db));
      assertThat(
          grown,
          grown,
          allOf(
              startsWith("exit 1: "),
              containsString(
                  "has 4 partitions, but generation 1 of " + MODEL + " ran with 3 (recorded ")));
      System.out.printf(
          "rollout end to end (%.0f s): %d merchants, %d rewarded by generation 1 (1 request each,"
              + " %d requests in all); generation 2 (allowed_lateness 1m) differs on %d windows;"
              + " canary 5%%: %d keys, %d wrong rewards prepared, 0 sent while paused, %d cancelled"
              + " by the rollback; ledger %d rows before, %d after, 0 lost; 4th partition refused:"
              + " %s; generation 3 (allowed_lateness 3h) shadow in %.1f s: %s%n"
              + "gates generation 2:%n"
              + "%s%ngates generation 1:%n%s%n",
          (System.nanoTime() - started) / 1e9,
          MERCHANTS,
          rewarded1.size(),
          provider.requests(),
          different.size(),
          canary.size(),
          wrongRewards.size(),
          wrongRewards.size(),
          before.size(),
          after.size(),
          grown.lines().filter(l -> l.contains("has 4 partitions")).findFirst().orElse(""),
          fixSeconds,
          recomputed.lines().filter(l -> l.startsWith("too-late")).findFirst().orElse(""),
          gatesLines(gates2),
          gatesLines(gates1));
    }
  }

  /**
   * Each row of the late topic names its event by source position, and the source topic still holds
   * that record there: a too-late event is kept where it was (docs/decisions/0048).
   */
  private static void lateRowsNameTheirSourceRecords(int tooLate) throws Exception {
    List<LocalServices.TopicRecord> late =
        LocalServices.readUntil(MODEL + ".late", tooLate + " rows", r -> r.size() >= tooLate);
    Map<String, com.fasterxml.jackson.databind.JsonNode> source = new TreeMap<>();
    for (LocalServices.TopicRecord r : LocalServices.readToEnd(TOPIC)) {
      source.put(r.partition() + "-" + r.offset(), r.value());
    }
    List<String> wrong = new ArrayList<>();
    for (LocalServices.TopicRecord r : late) {
      String at = r.value().path("partition").asText() + "-" + r.value().path("offset").asText();
      com.fasterxml.jackson.databind.JsonNode kept = source.get(at);
      if (kept == null
          || !kept.path("merchant_id").equals(r.value().path("record").path("merchant_id"))
          || kept.path("amount")
                  .decimalValue()
                  .compareTo(r.value().path("record").path("amount").decimalValue())
              != 0) {
        wrong.add(at + ": late row " + r.value() + ", source record " + kept);
      }
    }
    assertEquals(List.of(), wrong, "late rows whose source position holds another record");
    assertEquals(tooLate, late.size(), "one late row per too-late event");
  }

  private static void project(Path dir, LocalProviderServer provider, String policy)
      throws Exception {
    Files.createDirectories(dir.resolve("models"));
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: kafka\n    topic: "
            + TOPIC
            + "\n    format: json\n    schema:\n      merchant_id: int64\n"
            + "      amount: decimal(12,2)\n      paid_at: timestamp\n    event_time: paid_at\n"
            + "    watermark: 5m\n");
    Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  "
            + MODEL
            + ":\n    key: [merchant_id]\n    window: 1h\n"
            + policy
            + "    effects:\n      - type: reward\n        subject: merchant_id\n"
            + "        when: \"revenue >= "
            + TARGET
            + "\"\n        provider: {kind: webhook, url: \""
            + provider.url()
            + "\", idempotency: key, receipts: true}\n");
    Files.writeString(
        dir.resolve("models/" + MODEL + ".sql"),
        "SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('payments')"
            + " GROUP BY merchant_id\n");
  }

  /**
   * part1.yml: merchant m (partition m % 3) paid 120 in the 10:00 hour, then an 11:10 payment of 1
   * by merchant 1000 + p on each partition p (its watermark to 11:05: the hour's revision 1);
   * part2.yml: the refunds of 30 at 10:50 (a correction at W_p 11:05 under 30m allowed lateness,
   * too late under 1m), the end of the day (12:40), a payment of -50 at 10:30 on each partition
   * (too late for both) and 13:40; both.yml: the two in order, for the oracles.
   */
  private static void fixtures(Path dir) throws Exception {
    Files.createDirectories(dir);
    StringBuilder part1 = new StringBuilder();
    for (int m = 1; m <= MERCHANTS; m++) {
      part1.append(item(m % 3, m, "120", String.format("10:%02d", m % 50)));
    }
    for (int p = 0; p < 3; p++) {
      part1.append(item(p, 1000 + p, "1", "11:10"));
    }
    StringBuilder part2 = new StringBuilder();
    for (int m = 3; m <= MERCHANTS; m += 4) {
      part2.append(item(m % 3, m, "-30", "10:50"));
    }
    part2.append("  - watermark: \"2026-08-30T12:40:00Z\"\n");
    for (int m = 1; m <= 3; m++) { // too late for both policies: they stay in the topic
      part2.append(item(m % 3, m, "-50", "10:30"));
    }
    // a record is handed on in log order once the source watermark passes the W_p it arrived at:
    // the next punctuation releases the too-late events (reliability.md, the hand-over's latency)
    part2.append("  - watermark: \"2026-08-30T13:40:00Z\"\n");
    Files.writeString(dir.resolve("part1.yml"), fixture(part1.toString()));
    Files.writeString(dir.resolve("part2.yml"), fixture(part2.toString()));
    Files.writeString(dir.resolve("both.yml"), fixture(part1.toString() + part2));
  }

  private static String item(int partition, long merchant, String amount, String at) {
    return "  - { partition: "
        + partition
        + ", event: { merchant_id: "
        + merchant
        + ", amount: "
        + amount
        + ", paid_at: \"2026-08-30T"
        + at
        + ":00Z\" } }\n";
  }

  private static String fixture(String given) {
    return "model: " + MODEL + "\n\ngiven:\n" + given + "\nexpect: []\n";
  }

  /** Per merchant, the revenue of its last revision of the 10:00 hour, as the oracle computes. */
  private static Map<Long, BigDecimal> finalRevenue(Path project) throws Exception {
    Map<Long, BigDecimal> out = new TreeMap<>();
    for (WindowedOutcome.Row r : oracle(project).rows()) {
      if (r.windowStart().equals(Instant.parse("2026-08-30T10:00:00Z"))
          && r.status() != WindowStatus.EARLY) {
        out.put(
            ((Number) r.key().get("merchant_id")).longValue(),
            new BigDecimal(String.valueOf(r.values().get("revenue"))).stripTrailingZeros());
      }
    }
    return out;
  }

  private static WindowedOutcome oracle(Path project) throws Exception {
    Project p = Project.load(project);
    Path fixtures = project.resolveSibling("generation-1").resolve("fixtures/both.yml");
    return WindowedOracle.of(DeclaredModel.of(p, MODEL)).run(Fixture.load(p, fixtures));
  }

  private static Set<Long> rewarded(Map<Long, BigDecimal> revenue) {
    return revenue.entrySet().stream()
        .filter(e -> e.getValue().compareTo(TARGET) >= 0)
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** Every revision the two generations' oracles publish, as {@link #ledger} shows a row. */
  private static Set<String> published(Path... projects) throws Exception {
    Set<String> out = new TreeSet<>();
    for (Path p : projects) {
      for (WindowedOutcome.Row r : oracle(p).rows()) {
        if (r.status() == WindowStatus.ON_TIME || r.status() == WindowStatus.CORRECTED) {
          out.add(r.projectionId() + " " + r.revision() + " " + r.aggregateDigest());
        }
      }
    }
    return out;
  }

  /** Every ledger row of the model, both generations. */
  private static Set<String> ledger(LocalPostgres postgres) throws Exception {
    return new TreeSet<>(
        query(
            postgres,
            "SELECT projection_id || ' ' || revision || ' ' || aggregate_digest FROM"
                + " streamform.correction_ledger"));
  }

  /** Per merchant, the revenue of the 10:00 hour in generation {@code generation}'s projections. */
  private static Map<Long, BigDecimal> revenue(LocalPostgres postgres, int generation)
      throws Exception {
    Map<Long, BigDecimal> out = new TreeMap<>();
    for (String row :
        query(
            postgres,
            "SELECT (window_key->>'merchant_id') || ' ' || (aggregate_values->>'revenue') FROM"
                + " streamform.projection WHERE model = '"
                + MODEL
                + "' AND generation = "
                + generation
                + " AND window_start = '2026-08-30T10:00:00Z'")) {
      String[] f = row.split(" ");
      out.put(Long.parseLong(f[0]), new BigDecimal(f[1]).stripTrailingZeros());
    }
    return out;
  }

  /** Per merchant, the revenue of the 10:00 hour the canonical view shows. */
  private static Map<Long, BigDecimal> canonicalRevenue(LocalPostgres postgres) throws Exception {
    Map<Long, BigDecimal> out = new TreeMap<>();
    for (String row :
        query(
            postgres,
            "SELECT (window_key->>'merchant_id') || ' ' || (aggregate_values->>'revenue') FROM"
                + " streamform.canonical_projection WHERE model = '"
                + MODEL
                + "' AND window_start = '2026-08-30T10:00:00Z'")) {
      String[] f = row.split(" ");
      out.put(Long.parseLong(f[0]), new BigDecimal(f[1]).stripTrailingZeros());
    }
    return out;
  }

  /** Waits until {@code count(*)} of {@code streamform.<from>} reaches {@code count}. */
  private static void awaitCount(LocalPostgres postgres, String from, int count) throws Exception {
    String sql = "SELECT count(*) FROM streamform." + from;
    long deadline = System.nanoTime() + LocalServices.AWAIT.toNanos();
    String now = "";
    while (System.nanoTime() < deadline) {
      try {
        now = query(postgres, sql).get(0);
      } catch (java.sql.SQLException notYet) {
        now = "(" + notYet.getMessage() + ")"; // the schema is migrated by run
      }
      if (now.matches("[0-9]+") && Long.parseLong(now) >= count) {
        return;
      }
      LocalServices.checkNoJobFailed();
      Thread.sleep(500);
    }
    fail(sql + ": " + now + " after " + LocalServices.AWAIT + ", expected " + count);
  }

  /**
   * The documented canary hash, computed here apart from the database: the first 32 bits of SHA-256
   * of the key as PostgreSQL prints it as jsonb, unsigned, modulo 10 000.
   */
  private static int bucket(long merchant) throws Exception {
    byte[] sha =
        MessageDigest.getInstance("SHA-256")
            .digest(("{\"merchant_id\": " + merchant + "}").getBytes(StandardCharsets.UTF_8));
    return (int) ((ByteBuffer.wrap(sha, 0, 4).getInt() & 0xffffffffL) % 10_000);
  }

  private static String[] dispatch(Path project, String[] db) {
    return join(new String[] {"dispatch", project.toString(), "--model", MODEL, "--once"}, db);
  }

  private static String[] compare(Path project) {
    return new String[] {
      "compare-generations", project.toString(), "--model", MODEL, "--from", "1", "--to", "2"
    };
  }

  private static String[] gates(Path project, LocalProviderServer provider) {
    return new String[] {
      "gates",
      project.toString(),
      "--model",
      MODEL,
      "--bootstrap-servers",
      BOOTSTRAP,
      "--provider-url",
      provider.url(),
      "--skip",
      "oracle"
    };
  }

  /** The printed line of {@code gate}, spaces squeezed. */
  private static String line(String out, String gate) {
    return out.lines()
        .filter(l -> l.matches("\\s+(PASS|FAIL|NOT MEASURED)\\s+" + gate + "\\s.*"))
        .map(l -> l.trim().replaceAll("\\s+", " "))
        .collect(Collectors.joining("\n"));
  }

  private static String gatesLines(String out) {
    return out.lines()
        .filter(l -> l.matches("\\s+(PASS|FAIL|NOT MEASURED)\\s.*") || l.startsWith("gates:"))
        .collect(Collectors.joining("\n"));
  }

  private static String[] join(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  private static String[] join(String[] a, String[] b, String... c) {
    return join(join(a, b), c);
  }
}
