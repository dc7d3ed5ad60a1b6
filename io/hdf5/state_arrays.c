/* The table of state_arrays.h. */
#include "state_arrays.h"

const struct state_array state_arrays[STATE_ARRAYS] = {
    {"position", "position", 0, 1, offsetof(struct swarm_state, position), "objective variables",
     "particle positions", "particle positions", 0},
    {"velocity", "velocity", 0, 1, offsetof(struct swarm_state, velocity),
     "objective variables per iteration", "particle velocities", "particle velocities", 0},
    {"pbest_position", "pbest_position", 0, 1, offsetof(struct swarm_state, pbest_position),
     "objective variables", "best position each particle has visited",
     "best position each particle has visited", 0},
    {"cost", "fitness", 1, 0, offsetof(struct swarm_state, cost), "objective units",
     "cost at the position (fitness, negated when maximizing)", "fitness at the position", 0},
    {"pbest_cost", "pbest_fitness", 1, 0, offsetof(struct swarm_state, pbest_cost),
     "objective units", "cost at the personal best position",
     "fitness at the personal best position", 0},
    {"frame", NULL, 0, 1, offsetof(struct swarm_state, frame), "1",
     "each island's eigen frame (swarm.frame): D rows of D, column q its axis q", NULL, 1},
};
