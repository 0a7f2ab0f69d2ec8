package io.standby.cli;

import io.standby.slot.StandbyDatabase;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Base of the short administrative subcommands: the root's --mongo and --db, and standard output. */
abstract class AdminCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Opens the database and checks that it answers within {@link StandbyCli#ADMIN_TIMEOUT}. */
    StandbyDatabase connect() {
        return ((StandbyCli) spec.root().userObject()).connect(StandbyCli.ADMIN_TIMEOUT);
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }
}
