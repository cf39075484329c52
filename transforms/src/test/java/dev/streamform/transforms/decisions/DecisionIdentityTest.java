package dev.streamform.transforms.decisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A decision's id is the hash of its identity fields as docs/reference/output-formats.md writes
 * them ({@code H(["decision", model, event_id, partition, offset, occurred_at, contract,
 * state_cutoff, state_revision, model_digest, preprocessing_digest, policy_generation, revision,
 * supersedes])}, docs/semantics.md §11). The vectors were computed outside Java, with Python's
 * hashlib over the canonical texts written out in the comments, from the reference page's worked
 * example: {@code decisionId()} is checked against an independent SHA-256, and every identity field
 * is shown to move it.
 */
class DecisionIdentityTest {
  private static final Schema KEY = Schema.builder().addInt64Field("customer_id").build();
  private static final String MODEL_DIGEST =
      "5a69566f8017f74f1dd493577d6b252fcac2dd130306e8b961fc230546774523";
  private static final String PREPROCESSING_DIGEST =
      "a83ddf52a6a72babd45652d8a361770817657616f547651562c7a5ecae0297ae";
  private static final String SUPERSEDES =
      "f63e5b8d15face18a1d5da78362eb5f3445961febfceec4cf85f65d6981af4ab";

  /** The reference page's example decision (receipt_risk, event 1-0, its revision 2). */
  private static Decision.Builder example() {
    Row key = Row.withSchema(KEY).addValue(7L).build();
    return Decision.builder()
        .setModel("receipt_risk")
        .setKey(key)
        .setEvent(key)
        .setEventId("1-0")
        .setPartition(1)
        .setOffset(0)
        .setOccurredAt(Instant.parse("2026-08-30T10:10:00.000Z"))
        .setArrivedAt(Instant.parse("2026-08-30T10:12:00.000Z"))
        .setArrivalWatermark(null)
        .setScoredAt(Instant.parse("2026-08-30T11:00:00.000Z"))
        .setContract(FeatureContract.AS_OF_OCCURRENCE)
        .setStateCutoff(Instant.parse("2026-08-30T11:00:00.000Z"))
        .setStateRevision(5)
        .setFeatures(Map.of("receipts_1h", 2.0, "spend_1h", 160.0))
        .setScore(0.76)
        .setModelDigest(MODEL_DIGEST)
        .setPreprocessingDigest(PREPROCESSING_DIGEST)
        .setPolicyGeneration(1)
        .setRevision(2)
        .setSupersedes(SUPERSEDES)
        .setRevisedBy("0-4");
  }

  @Test
  void theIdIsTheHashOfTheDocumentedIdentityFields() {
    // sha256('["decision","receipt_risk","1-0",1,0,"2026-08-30T10:10:00.000Z","as_of_occurrence",
    //   "2026-08-30T11:00:00.000Z",5,"5a69…4523","a83d…97ae",1,2,"f63e…f4ab"]')
    assertEquals(
        "90c8211bc71b0ec1b5ca618bf5f12f87af53eea37edd7f32302c26c20a64ab16",
        example().build().decisionId());
  }

  @Test
  void thePolicyGenerationIsPartOfTheId() {
    // the same text with policy_generation 2: a decision of generation 2 is another decision
    assertEquals(
        "8f2f63d0a48abcd7dc59005abf2d32b9f38392da834adbac1346047fe357ab8f",
        example().setPolicyGeneration(2).build().decisionId());
  }

  @Test
  void everyIdentityFieldMovesTheIdAndNoOtherFieldDoes() {
    String id = example().build().decisionId();
    Map<String, UnaryOperator<Decision.Builder>> identity =
        Map.ofEntries(
            Map.entry("model", b -> b.setModel("other_model")),
            Map.entry("event_id", b -> b.setEventId("1-1")),
            Map.entry("partition", b -> b.setPartition(0)),
            Map.entry("offset", b -> b.setOffset(1)),
            Map.entry(
                "occurred_at", b -> b.setOccurredAt(Instant.parse("2026-08-30T10:10:00.001Z"))),
            Map.entry("contract", b -> b.setContract(FeatureContract.LATEST_AVAILABLE)),
            Map.entry(
                "state_cutoff", b -> b.setStateCutoff(Instant.parse("2026-08-30T11:00:00.001Z"))),
            Map.entry("state_revision", b -> b.setStateRevision(6)),
            Map.entry("model_digest", b -> b.setModelDigest(PREPROCESSING_DIGEST)),
            Map.entry("preprocessing_digest", b -> b.setPreprocessingDigest(MODEL_DIGEST)),
            Map.entry("policy_generation", b -> b.setPolicyGeneration(3)),
            Map.entry("revision", b -> b.setRevision(3)),
            Map.entry("supersedes", b -> b.setSupersedes(null)));
    identity.forEach(
        (field, change) ->
            assertNotEquals(id, change.apply(example()).build().decisionId(), field));
    Map<String, UnaryOperator<Decision.Builder>> others =
        Map.of(
            "arrived_at", b -> b.setArrivedAt(Instant.parse("2026-08-30T10:13:00.000Z")),
            "arrival_watermark",
                b -> b.setArrivalWatermark(Instant.parse("2026-08-30T10:05:00.000Z")),
            "scored_at", b -> b.setScoredAt(Instant.parse("2026-08-30T11:05:00.000Z")),
            "features", b -> b.setFeatures(Map.of("receipts_1h", 3.0)),
            "score", b -> b.setScore(0.5),
            "revised_by", b -> b.setRevisedBy("0-5"));
    others.forEach(
        (field, change) -> assertEquals(id, change.apply(example()).build().decisionId(), field));
  }
}
