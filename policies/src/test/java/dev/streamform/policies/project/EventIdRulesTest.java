package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.digest.DeclarationDigest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code event_id} and {@code duplicates_within} on a source (issue 16): rules, default, digest.
 */
class EventIdRulesTest {
  @TempDir Path dir;

  private static final String SOURCE =
      """
      sources:
        orders:
          connector: kafka
          topic: orders
          schema:
            order_id: string
            customer_id: int64
            amount: decimal(12,2)
            ordered_at: timestamp
      """;

  private ProjectFolder with(String extra) {
    return ProjectFolder.seed(dir).sources(SOURCE + extra);
  }

  @Test
  void eventIdWithItsDefaultHorizon() throws Exception {
    SourceDeclaration s =
        with("    event_time: ordered_at\n    event_id: order_id\n").load().sources().get("orders");
    assertEquals(Optional.of("order_id"), s.eventId());
    assertEquals(Optional.of(Duration.ofHours(1)), s.duplicatesWithin());
  }

  @Test
  void aDeclaredHorizonIsKept() throws Exception {
    SourceDeclaration s =
        with("    event_time: ordered_at\n    event_id: order_id\n    duplicates_within: 10m\n")
            .load()
            .sources()
            .get("orders");
    assertEquals(Optional.of(Duration.ofMinutes(10)), s.duplicatesWithin());
  }

  @Test
  void eventIdMustBeAColumn() {
    assertThat(
        with("    event_time: ordered_at\n    event_id: orderid\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'event_id': 'orderid' is not a column of the"
                + " schema — did you mean 'order_id'? name the column that identifies an event:"
                + " order_id, customer_id, amount, ordered_at"));
  }

  @Test
  void eventIdNeedsEventTime() {
    assertThat(
        with("    event_id: order_id\n").problems(),
        hasItem(
            "sources.yml:10: source 'orders', key 'event_id': event_id needs an event-time column:"
                + " duplicates are recognised within a horizon of event time, which bounds the"
                + " state — add event_time: <timestamp column> or remove event_id"));
  }

  @Test
  void duplicatesWithinNeedsEventIdAndAPositiveDuration() {
    assertThat(
        with("    event_time: ordered_at\n    duplicates_within: 1h\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'duplicates_within': duplicates_within needs"
                + " event_id: there is no id to repeat — add event_id: <column that identifies an"
                + " event> or remove duplicates_within"));
    assertThat(
        with("    event_time: ordered_at\n    event_id: order_id\n    duplicates_within: 0s\n")
            .problems(),
        hasItem(
            "sources.yml:12: source 'orders', key 'duplicates_within': 0s would recognise no"
                + " duplicate — give how long after an event's time a repeat of its id is still a"
                + " duplicate, e.g. duplicates_within: 1h, or remove event_id"));
  }

  @Test
  void theDigestNamesEventIdOnlyWhenDeclared() throws Exception {
    SourceDeclaration plain = with("    event_time: ordered_at\n").load().sources().get("orders");
    SourceDeclaration deduped =
        with("    event_time: ordered_at\n    event_id: order_id\n").load().sources().get("orders");
    SourceDeclaration spelled =
        with("    event_time: ordered_at\n    event_id: order_id\n    duplicates_within: 60m\n")
            .load()
            .sources()
            .get("orders");
    assertEquals(false, DeclarationDigest.canonicalForm(plain).contains("event_id"));
    assertNotEquals(DeclarationDigest.of(plain), DeclarationDigest.of(deduped));
    assertEquals(
        DeclarationDigest.of(deduped),
        DeclarationDigest.of(spelled),
        "1h = 60m: meaning, not spelling");
  }

  @Test
  void idsAreTheSourcesUnlessTheScopeIsKey() throws Exception {
    SourceDeclaration plain =
        with("    event_time: ordered_at\n    event_id: order_id\n").load().sources().get("orders");
    SourceDeclaration byKey =
        with("    event_time: ordered_at\n    event_id: order_id\n    event_id_scope: key\n")
            .load()
            .sources()
            .get("orders");
    assertEquals(SourceDeclaration.EventIdScope.SOURCE, plain.eventIdScope());
    assertEquals(SourceDeclaration.EventIdScope.KEY, byKey.eventIdScope());
  }

  @Test
  void eventIdScopeNeedsEventIdAndIsSourceOrKey() {
    assertThat(
        with("    event_time: ordered_at\n    event_id_scope: key\n").problems(),
        hasItem(
            "sources.yml:11: source 'orders', key 'event_id_scope': event_id_scope needs"
                + " event_id: there is no id to scope — add event_id: <column that identifies an"
                + " event> or remove event_id_scope"));
    assertThat(
        with("    event_time: ordered_at\n    event_id: order_id\n    event_id_scope: model\n")
            .problems(),
        hasItem(
            "sources.yml:12: source 'orders', key 'event_id_scope': 'model' is not one of"
                + " source, key — write event_id_scope: source or event_id_scope: key"));
  }

  @Test
  void theDigestNamesTheScopeOnlyWhenKey() throws Exception {
    SourceDeclaration plain =
        with("    event_time: ordered_at\n    event_id: order_id\n").load().sources().get("orders");
    SourceDeclaration spelled =
        with("    event_time: ordered_at\n    event_id: order_id\n    event_id_scope: source\n")
            .load()
            .sources()
            .get("orders");
    SourceDeclaration byKey =
        with("    event_time: ordered_at\n    event_id: order_id\n    event_id_scope: key\n")
            .load()
            .sources()
            .get("orders");
    assertEquals(false, DeclarationDigest.canonicalForm(plain).contains("event_id_scope"));
    assertEquals(DeclarationDigest.of(plain), DeclarationDigest.of(spelled), "the default");
    assertNotEquals(DeclarationDigest.of(plain), DeclarationDigest.of(byKey));
  }
}
