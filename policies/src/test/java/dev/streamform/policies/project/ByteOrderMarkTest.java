package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A UTF-8 byte-order mark, which some editors write first (Notepad's "UTF-8 with BOM"), is no part
 * of a model's query: as in the YAML files and in JSON lines, it is skipped.
 */
class ByteOrderMarkTest {
  @TempDir Path dir;

  @Test
  void aQueryFileStartingWithAByteOrderMarkLoads() throws Exception {
    ProjectFolder.seed(dir).sql("customer_metrics", "\uFEFF" + ProjectFolder.SQL);
    Project project = Project.load(dir);
    assertThat(project.models().containsKey("customer_metrics"), is(true));
    assertThat(project.models().get("customer_metrics").sql().startsWith("SELECT"), is(true));
    assertThat(
        Files.readString(dir.resolve("models/customer_metrics.sql")).charAt(0), is('\uFEFF'));
  }
}
