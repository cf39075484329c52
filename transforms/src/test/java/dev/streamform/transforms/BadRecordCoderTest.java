package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;

/**
 * The coder of Streamform's quarantine collections serializes small (Beam serializes a step's
 * coders each time it translates the step: the DirectRunner twice per bundle of a stateless step;
 * issue 31) and encodes a {@link BadRecord} exactly as Beam's own coder for it does.
 */
class BadRecordCoderTest {
  private static BadRecord bad() throws Exception {
    return BadRecord.fromExceptionInformation(
        "{\"order_id\":\"o-1\"}",
        StringUtf8Coder.of(),
        new IllegalArgumentException("no event time"),
        "quarantined: no event time (column ordered_at)");
  }

  @Test
  void itSerializesSmallAndReadsBackEqual() {
    byte[] bytes = SerializableUtils.serializeToByteArray(BadRecordCoder.of());
    Object back = SerializableUtils.deserializeFromByteArray(bytes, "coder");
    assertThat(back, equalTo(BadRecordCoder.of()));
    // Beam's schema coder for BadRecord: 2,992 bytes, its schema and getters field by field
    assertThat(bytes.length, lessThan(400));
  }

  @Test
  void itEncodesABadRecordAsBeamsCoderDoes() throws Exception {
    Coder<BadRecord> beams = BadRecord.getCoder(Pipeline.create());
    BadRecord record = bad();
    byte[] ours = CoderUtils.encodeToByteArray(BadRecordCoder.of(), record);
    assertThat(ours, equalTo(CoderUtils.encodeToByteArray(beams, record)));
    assertThat(CoderUtils.decodeFromByteArray(BadRecordCoder.of(), ours), equalTo(record));
    assertThat(new String(ours, StandardCharsets.UTF_8).contains("no event time"), equalTo(true));
  }

  @Test
  void aQuarantineCollectionKeepsItsSchema() {
    Pipeline p = Pipeline.create();
    PCollection<BadRecord> bad =
        p.apply(org.apache.beam.sdk.transforms.Create.empty(BadRecordCoder.of()));
    assertThat(bad.hasSchema(), equalTo(true));
    assertThat(
        bad.getSchema(),
        equalTo(
            ((org.apache.beam.sdk.schemas.SchemaCoder<BadRecord>) BadRecord.getCoder(p))
                .getSchema()));
  }
}
