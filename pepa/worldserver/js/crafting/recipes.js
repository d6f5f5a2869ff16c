'use strict'
// Crafting recipes, as vanilla matches them: minecraft-data's recipes indexed once, a shaped
// recipe at any offset in the grid and mirrored left to right, a shapeless one as a multiset.

// craft(grid, w): the result for the items of a w x h grid (row by row), or null
function crafter (registry, Item) {
  const recipes = indexRecipes(registry)
  return function craft (grid, w) {
    let minX = w; let maxX = -1; let minY = w; let maxY = -1
    grid.forEach((it, i) => {
      if (!it) return
      const x = i % w
      const y = Math.floor(i / w)
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y)
    })
    if (maxX < 0) return null
    const rows = []
    for (let y = minY; y <= maxY; y++) {
      const row = []
      for (let x = minX; x <= maxX; x++) row.push(grid[y * w + x] ? grid[y * w + x].type : null)
      rows.push(row)
    }
    const found = recipes.shaped.get(shapeKey(rows)) ||
      recipes.shapeless.get(grid.filter(Boolean).map(it => it.type).sort((a, b) => a - b).join(','))
    return found ? new Item(found.id, found.count) : null
  }
}

function idOf (cell) {
  if (cell === null || cell === undefined) return null
  const id = typeof cell === 'object' ? cell.id : cell
  return id === -1 || id === undefined ? null : id
}

function trim (rows) {
  let r = rows.map(row => row.map(idOf))
  while (r.length && r[0].every(c => c === null)) r = r.slice(1)
  while (r.length && r[r.length - 1].every(c => c === null)) r = r.slice(0, -1)
  const width = Math.max(0, ...r.map(row => row.length))
  r = r.map(row => [...row, ...new Array(width - row.length).fill(null)])
  while (r.length && r.every(row => row[0] === null)) r = r.map(row => row.slice(1))
  while (r.length && r.every(row => row[row.length - 1] === null)) r = r.map(row => row.slice(0, -1))
  return r
}

function shapeKey (rows) {
  return rows.map(row => row.map(c => (c === null ? '_' : c)).join(',')).join('/')
}

function indexRecipes (registry) {
  const shaped = new Map()
  const shapeless = new Map()
  const mirrored = []
  for (const list of Object.values(registry.recipes || {})) {
    for (const recipe of list) {
      if (recipe.inShape) {
        const rows = trim(recipe.inShape)
        const key = shapeKey(rows)
        if (!shaped.has(key)) shaped.set(key, recipe.result)
        mirrored.push([shapeKey(rows.map(row => [...row].reverse())), recipe.result])
      } else if (recipe.ingredients) {
        const key = recipe.ingredients.map(idOf).filter(id => id !== null).sort((a, b) => a - b).join(',')
        if (!shapeless.has(key)) shapeless.set(key, recipe.result)
      }
    }
  }
  // vanilla also matches a shaped recipe mirrored left to right
  for (const [key, result] of mirrored) if (!shaped.has(key)) shaped.set(key, result)
  return { shaped, shapeless }
}

module.exports = { crafter, indexRecipes }
