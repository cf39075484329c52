package dev.streamform.sink.decisions;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchemaTest;
import dev.streamform.transforms.decisions.DecisionCoders;
import java.sql.Connection;
import java.sql.Statement;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The decision ledger sink checks the schema before it migrates, as the revision sink does: a job
 * submitted without the command line into a database whose schema {@code streamform} is another
 * application's fails in the one message a command gives, naming the database (ADR 0136).
 */
class DecisionLedgerSchemaTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @Test
  void theDecisionLedgerSinkInAPipelineOfItsOwnRefusesAnotherApplicationsSchema() throws Exception {
    JdbcTarget target = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres");
    try (HikariDataSource pool = target.openPool("test", 2, 1_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA streamform");
      s.execute("CREATE TABLE streamform.orders (id serial)");
      c.commit();
    }
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    // as DecisionLedgerRestartTest: a Decision's maps are not checked for immutability here
    options.as(DirectOptions.class).setEnforceImmutability(false);
    options.as(DirectOptions.class).setEnforceEncodability(false);
    Pipeline p = Pipeline.create(options);
    p.apply(
            Create.of(DecisionLedgerRestartTest.decision(0))
                .withCoder(
                    DecisionCoders.DecisionCoder.of(
                        DecisionLedgerRestartTest.KEY, DecisionLedgerRestartTest.EVENT)))
        .apply(DecisionLedgerSink.to(target));
    LedgerSchemaTest.assertRefusedAsACommandRefusesIt(p, target);
  }
}
