package dev.streamform.core.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The test vectors of the README's "Revision identity": the hex digests were computed outside Java
 * (Python's hashlib over the canonical texts written out here), so the encoder is checked against
 * an independent SHA-256 and a canonical text written by hand.
 */
class RevisionIdentityTest {
  private static final Instant START = Instant.parse("2026-08-30T10:00:00Z");
  private static final Instant END = Instant.parse("2026-08-30T11:00:00Z");

  @Test
  void logicalWindowIdVector() {
    assertEquals(
        "[\"window\",\"hourly_revenue\",{\"merchant_id\":7},"
            + "\"2026-08-30T10:00:00.000Z\",\"2026-08-30T11:00:00.000Z\"]",
        RevisionIdentity.canonical(
            List.of("window", "hourly_revenue", Map.of("merchant_id", 7L), START, END)));
    assertEquals(
        "63f859c63e35403012fad180f0e51c7ceef796cd726b773a95f7df60ec46904b",
        RevisionIdentity.logicalWindowId("hourly_revenue", Map.of("merchant_id", 7L), START, END));
  }

  @Test
  void aCalendarWindowsZoneIsInItsIdAndAFixedWindowsIdIsUnchanged() {
    Instant start = Instant.parse("2026-10-24T22:00:00Z");
    Instant end = Instant.parse("2026-10-25T23:00:00Z"); // the 25-hour day in Europe/Berlin
    Map<String, Object> key = Map.of("store_id", "berlin-1");
    // vectors computed outside Java (Python hashlib.sha256 over the canonical text)
    assertEquals(
        "a5c0e92eaa81df50af0e0a67c5f9ac5effe8638955838ccfc084bcf9ed4f1b5d",
        RevisionIdentity.logicalWindowId("daily_revenue", key, start, end, "Europe/Berlin"));
    assertEquals(
        "abb33cb203a4c1bb2590fe84ad67132f1e6b30b5e02c7ab2318cf5e07690e20a",
        RevisionIdentity.logicalWindowId("daily_revenue", key, start, end, null));
    assertNotEquals(
        RevisionIdentity.logicalWindowId("daily_revenue", key, start, end, "Europe/Berlin"),
        RevisionIdentity.logicalWindowId("daily_revenue", key, start, end, "Africa/Lagos"));
  }

  @Test
  void projectionIdVector() {
    assertEquals(
        "95dbe384decc86d458ba30b9e59b81cde90638d99e4e5ea7f4e73f218b0df281",
        RevisionIdentity.projectionId(
            "63f859c63e35403012fad180f0e51c7ceef796cd726b773a95f7df60ec46904b", 1));
  }

  @Test
  void aggregateDigestVectorFollowsValueNotSpellingOrOrder() {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("revenue", new BigDecimal("30.50"));
    values.put("orders", 3L);
    assertEquals(
        "[\"aggregate\",{\"orders\":3,\"revenue\":\"30.5\"}]",
        RevisionIdentity.canonical(List.of("aggregate", values)));
    assertEquals(
        "04d964cac68690b4d9f19ebf4de5cc38f44712cbb388fa91d2565c71e58d4f35",
        RevisionIdentity.aggregateDigest(values));
    assertEquals(
        RevisionIdentity.aggregateDigest(values),
        RevisionIdentity.aggregateDigest(Map.of("orders", 3, "revenue", new BigDecimal("30.5"))));
    assertNotEquals(
        RevisionIdentity.aggregateDigest(values),
        RevisionIdentity.aggregateDigest(Map.of("orders", 3L, "revenue", new BigDecimal("30.51"))));
  }

  @Test
  void generationChangesProjectionButNotLogicalWindow() {
    String lw = RevisionIdentity.logicalWindowId("m", Map.of("k", "a"), START, END);
    assertNotEquals(RevisionIdentity.projectionId(lw, 1), RevisionIdentity.projectionId(lw, 2));
  }

  @Test
  void stringsAreEscapedSoNoValueForgesAStructure() {
    assertEquals("\"a\\\"b\\\\c\\u0001\"", RevisionIdentity.canonical("a\"b\\c\u0001"));
    assertNotEquals(
        RevisionIdentity.logicalWindowId("m", Map.of("k", "a\",\"b"), START, END),
        RevisionIdentity.logicalWindowId("m", Map.of("k", "a", "b", ""), START, END));
    assertEquals("\"0\"", RevisionIdentity.canonical(new BigDecimal("0.00")));
    assertEquals("null", RevisionIdentity.canonical(null));
  }

  /** Each character that needs an escape is escaped when it is the text's only one. */
  @Test
  void eachEscapeIsMadeWhereItIsTheOnlyOne() {
    assertEquals("\"a\\\\b\"", RevisionIdentity.canonical("a\\b"));
    assertEquals("\"a\\\"b\"", RevisionIdentity.canonical("a\"b"));
    assertEquals("\"a\\u000ab\"", RevisionIdentity.canonical("a\nb"));
    assertEquals("\"\\u0000\\u001f\"", RevisionIdentity.canonical("\u0000\u001f"));
    assertEquals("\"caf\u00e9 \u2028 /\"", RevisionIdentity.canonical("caf\u00e9 \u2028 /"));
  }

  @Test
  void unknownTypesAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RevisionIdentity.canonical(new Object()));
  }
}
