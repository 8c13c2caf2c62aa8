/**
 * Reads that join tables of several modules (the agent's candidates, a load's offer figures, the
 * results' activity). Each table's writes stay with the module that owns it; a read that needs
 * another module's rows alone goes through that module's index.ts, and one that joins several
 * owners' tables lives here. This module imports no other module, so any module may use it.
 */
export {};
