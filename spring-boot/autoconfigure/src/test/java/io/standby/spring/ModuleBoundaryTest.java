package io.standby.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * What a module descriptor would enforce for the auto-configuration, which has none (its pom says why): it uses the
 * exported API of the modules below it, never a package that their descriptors keep to themselves. A rule that finds no
 * class to check fails, so a wrong package name cannot make this pass.
 */
@AnalyzeClasses(packages = "io.standby.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class ModuleBoundaryTest {

    @ArchTest
    static final ArchRule usesNoInternalPackage = noClasses()
            .that()
            .resideInAPackage("io.standby.spring..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.standby..internal..")
            .because("io.standby.slot.internal and io.standby.robot.internal "
                    + "are exported only to the node's own modules");
}
