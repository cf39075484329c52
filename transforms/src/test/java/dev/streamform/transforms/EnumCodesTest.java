package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.ChangelogRecordCoder;
import dev.streamform.transforms.windows.WindowCoders;
import dev.streamform.transforms.windows.WindowRevision;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a coder writes an enum constant as a fixed code of its own, not as the constant's
 * position in the enum, so reordering or inserting a constant cannot turn one value into another in
 * a savepoint or in flight. The codes are the bytes earlier builds wrote, so their savepoints still
 * read.
 */
class EnumCodesTest {
  private static final Schema KEY = Schema.builder().addInt64Field("customer_id").build();
  private static final Schema VALUES = Schema.builder().addInt64Field("total").build();
  private static final Row KEY_ROW = Row.withSchema(KEY).addValue(7L).build();
  private static final Row VALUE_ROW = Row.withSchema(VALUES).addValue(30L).build();
  private static final Instant AT = Instant.parse("2026-08-30T10:00:00Z");

  @Test
  void changelogOperationsHaveFixedCodes() throws Exception {
    Map<ChangelogRecord.Op, Integer> codes =
        Map.of(ChangelogRecord.Op.INSERT, 0, ChangelogRecord.Op.UPDATE, 1);
    ChangelogRecordCoder coder = ChangelogRecordCoder.of(KEY, VALUES);
    for (ChangelogRecord.Op op : ChangelogRecord.Op.values()) {
      ChangelogRecord r = ChangelogRecord.of(op, KEY_ROW, VALUE_ROW, "0-1", 0, 1, AT);
      byte[] bytes = CoderUtils.encodeToByteArray(coder, r);
      assertEquals(codes.get(op), (int) bytes[0], op + "'s code"); // the op is the first field
      assertEquals(r, CoderUtils.decodeFromByteArray(coder, bytes));
    }
  }

  @Test
  void windowStatusesHaveFixedCodes() throws Exception {
    Map<WindowStatus, Integer> codes =
        Map.of(
            WindowStatus.EARLY, 0,
            WindowStatus.ON_TIME, 1,
            WindowStatus.CORRECTED, 2,
            WindowStatus.FINAL, 3);
    WindowCoders.WindowRevisionCoder coder = WindowCoders.WindowRevisionCoder.of(KEY, VALUES);
    // the status's byte: where an EARLY and a FINAL revision, equal otherwise, differ
    byte[] early = CoderUtils.encodeToByteArray(coder, revision(WindowStatus.EARLY));
    byte[] last = CoderUtils.encodeToByteArray(coder, revision(WindowStatus.FINAL));
    int at = 0;
    while (early[at] == last[at]) {
      at++;
    }
    for (WindowStatus status : WindowStatus.values()) {
      WindowRevision r = revision(status);
      byte[] bytes = CoderUtils.encodeToByteArray(coder, r);
      assertEquals(codes.get(status), (int) bytes[at], status + "'s code");
      assertEquals(r, CoderUtils.decodeFromByteArray(coder, bytes));
    }
  }

  private static WindowRevision revision(WindowStatus status) {
    return WindowRevision.builder()
        .setModel("m")
        .setKey(KEY_ROW)
        .setValues(VALUE_ROW)
        .setWindowStart(AT)
        .setWindowEnd(AT.plus(3_600_000))
        .setStatus(status)
        .setRevision(1)
        .setPredecessor(null)
        .setGeneration(1)
        .setLogicalWindowId("w")
        .setProjectionId("p")
        .setAggregateDigest("d")
        .setOffsets(List.of(WindowRevision.PartitionOffsets.of(0, 1, 1, 1)))
        .setWindowLocal(null)
        .build();
  }
}
