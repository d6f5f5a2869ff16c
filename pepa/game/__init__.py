"""What is true of Minecraft itself, whatever the moment: recipes and the crafting planner over
minecraft-data, and the game versions pepa plays. Pure values and functions; imports only
:mod:`pepa.base`."""
