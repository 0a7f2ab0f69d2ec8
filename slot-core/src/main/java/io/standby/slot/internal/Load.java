package io.standby.slot.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * How busy this node is, for its registry document and for choosing who claims first: the load score, 64 % CPU, 32 % of
 * the slots it may hold, 4 % heap, from 0 (idle) to 100 (saturated).
 */
public final class Load {

    /** Where the CPU and memory figures come from: the machine, or a test's fixed values. */
    public interface Gauge {
        /** The machine's CPU load, 0 to 1. */
        double cpu();

        /** The share of the heap in use, 0 to 1. */
        double memory();

        Gauge SYSTEM = new Gauge() {
            @Override
            public double cpu() {
                return Load.cpu();
            }

            @Override
            public double memory() {
                return Load.memory();
            }
        };

        /** An idle machine, for simulations that must replay exactly. */
        Gauge IDLE = new Gauge() {
            @Override
            public double cpu() {
                return 0;
            }

            @Override
            public double memory() {
                return 0;
            }
        };
    }

    private Load() {}

    /** The machine's CPU load, 0 to 1; 0 where the JVM cannot tell. */
    static double cpu() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        double load = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getCpuLoad() : -1;
        if (load < 0) {
            double average = os.getSystemLoadAverage();
            load = average < 0 ? 0 : average / os.getAvailableProcessors();
        }
        return Math.min(1, Math.max(0, load));
    }

    /** The share of the heap in use, 0 to 1. */
    static double memory() {
        Runtime runtime = Runtime.getRuntime();
        long max = runtime.maxMemory();
        return max <= 0 ? 0 : (double) (runtime.totalMemory() - runtime.freeMemory()) / max;
    }

    static int score(double cpu, int held, int maxSlots, double memory) {
        return (int) Math.round(64 * cpu + 32.0 * held / maxSlots + 4 * memory);
    }
}
