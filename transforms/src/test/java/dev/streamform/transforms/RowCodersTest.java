package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.ChangelogRecordCoder;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Beam gives every new {@link Schema} a random UUID and generates a coder class for each UUID it
 * encodes with; the stages' coders go through {@link RowCoders}, so a pipeline built again from
 * equal but new schemas (every fixture run in a warm JVM) reuses the first schema's class instead
 * of generating, and keeping, one more per run.
 */
class RowCodersTest {
  private static Schema keys() {
    return Schema.builder().addInt64Field("customer_rowcoders_test").build();
  }

  private static Schema values() {
    return Schema.builder()
        .addNullableField("total_rowcoders_test", Schema.FieldType.DECIMAL)
        .build();
  }

  /** Builds the changelog coder from new schemas and encodes one record with it. */
  private static void buildAndEncode() throws Exception {
    Schema k = keys();
    Schema v = values();
    ChangelogRecord r =
        ChangelogRecord.of(
            ChangelogRecord.Op.INSERT,
            Row.withSchema(k).addValue(42L).build(),
            Row.withSchema(v).addValue(new BigDecimal("10.00")).build(),
            "0-0",
            0,
            0,
            new Instant(0));
    CoderUtils.encodeToByteArray(ChangelogRecordCoder.of(k, v), r);
  }

  @Test
  void aChangelogCoderBuiltAgainFromEqualSchemasLoadsNoNewClass() throws Exception {
    buildAndEncode(); // the first: whatever it loads and generates
    long before = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
    for (int i = 0; i < 5; i++) {
      buildAndEncode();
    }
    long loaded = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount() - before;
    // before RowCoders: two generated row coder classes (key, values) per build, 10 in all
    assertThat("classes loaded by 5 more builds", loaded, lessThan(2L));
  }

  @Test
  void equalSchemasShareTheFirstOnesUuidOtherShapesDoNot() {
    Schema first = keys();
    Schema again = keys();
    assertThat(first.getUUID(), not(again.getUUID())); // Beam: a new UUID for every schema
    assertThat(
        RowCoders.of(again).getSchema().getUUID(), is(RowCoders.of(first).getSchema().getUUID()));
    assertThat(
        RowCoders.of(values()).getSchema().getUUID(),
        not(RowCoders.of(first).getSchema().getUUID()));
    assertThat(RowCoder.of(again).getSchema().getUUID(), is(again.getUUID()));
  }
}
