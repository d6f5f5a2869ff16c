'use strict'
// Eye heights, shared by the sandbox's mobs (brains.js: what a mob sees) and the
// bot (cover.js, melee.js: which archer sees it, where its shield faces), so the
// two always agree on a skeleton's line of sight.
//
// Vanilla 1.16.5 Entity.getStandingEyeHeight is 0.85 x the height unless a mob
// overrides it: AbstractSkeletonEntity returns 1.74 (not 0.85 x 1.99 = 1.69).
const SKELETON_EYE = 1.74
const EYES = { skeleton: SKELETON_EYE, stray: SKELETON_EYE, enderman: 2.55 } // EnderMan.getStandingEyeHeight

// eyeHeight(name, height): blocks above the feet
function eyeHeight (name, height) {
  return EYES[name] !== undefined ? EYES[name] : (height || 1.8) * 0.85
}

module.exports = { eyeHeight, SKELETON_EYE }
