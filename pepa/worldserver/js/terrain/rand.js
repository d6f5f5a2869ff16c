'use strict'
// Deterministic randomness for the terrain generators: every draw is a pure
// function of the world's seed and block or chunk coordinates, so the same
// seed gives the same world whichever chunks are generated first.

// a 32-bit integer hash of the seed, three coordinates and a salt (murmur3's
// finaliser over a mix of the inputs)
function hash (seed, a, b, c, salt) {
  let h = seed ^ Math.imul(a | 0, 0x27d4eb2d) ^ Math.imul(b | 0, 0x165667b1) ^
    Math.imul(c | 0, 0x1b873593) ^ Math.imul(salt, 0x9e3779b9)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

// mulberry32: a small seeded generator. next() and nextFloat() in [0, 1),
// int(n) in [0, n) (java.util.Random's nextInt(n): n <= 0 throws there; here 0),
// seed() a new generator's seed (java's nextLong for a child Random)
function random (seed) {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = Math.imul(s ^ (s >>> 15), s | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    nextFloat: next,
    int: (n) => n > 0 ? Math.floor(next() * n) : 0,
    seed: () => Math.floor(next() * 4294967296) >>> 0
  }
}

// level.dat keeps any long; fold it into 32 bits
function normSeed (seed) {
  const n = Number(seed) || 0
  return (n % 4294967296) | 0
}

// 2D value noise in [-1, 1] over a lattice of `scale` blocks, smoothed with
// the quintic fade; octaves(x, z, scale, salt, n) sums n of them, each at
// half the scale and half the weight, normalised back to [-1, 1]
function valueNoise (seed) {
  const lattice = (ix, iz, salt) => hash(seed, ix, iz, 0, salt) / 2147483648 - 1
  const fade = (t) => t * t * t * (t * (t * 6 - 15) + 10)
  function noise (x, z, scale, salt) {
    const fx = x / scale
    const fz = z / scale
    const ix = Math.floor(fx)
    const iz = Math.floor(fz)
    const tx = fade(fx - ix)
    const tz = fade(fz - iz)
    const a = lattice(ix, iz, salt)
    const b = lattice(ix + 1, iz, salt)
    const c = lattice(ix, iz + 1, salt)
    const d = lattice(ix + 1, iz + 1, salt)
    const top = a + (b - a) * tx
    return top + (c + (d - c) * tx - top) * tz
  }
  function octaves (x, z, scale, salt, n) {
    let sum = 0
    let weight = 1
    let total = 0
    for (let i = 0; i < n; i++) {
      sum += weight * noise(x, z, scale, salt + 97 * i)
      total += weight
      weight /= 2
      scale /= 2
    }
    return sum / total
  }
  return { noise, octaves }
}

module.exports = { hash, random, normSeed, valueNoise }
